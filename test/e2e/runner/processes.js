// @ts-check
/**
 * Logging and child processes of the e2e scripts: every n8n CLI / server and tool runs as a child in
 * its own process group, all killed on exit, Ctrl-C, SIGTERM or a crash; the overall run timeout;
 * free loopback ports.
 * Part of the e2e runner's library (lib.js gathers it).
 */
'use strict';

const { spawn, spawnSync } = require('node:child_process');
const fs = require('node:fs');
const net = require('node:net');
const path = require('node:path');
const { ROOT } = require('./package-info');

const t0 = Date.now();
const since = () => `${((Date.now() - t0) / 1000).toFixed(1).padStart(6)}s`;
/** @param {string} msg */
function log(msg) {
	process.stdout.write(`[e2e ${since()}] ${msg}\n`);
}

// ------------------------------------------------------------------------------- processes

/** @type {Set<import('node:child_process').ChildProcess>} */
const children = new Set();
let cleanupInstalled = false;

/** Kills every child we started (their whole process group), synchronously. */
function killAll(signal = /** @type {NodeJS.Signals} */ ('SIGKILL')) {
	for (const child of children) {
		if (child.pid && child.exitCode === null && child.signalCode === null) {
			try {
				process.kill(-child.pid, signal);
			} catch {
				try {
					child.kill(signal);
				} catch {
					/* already gone */
				}
			}
		}
	}
}

/**
 * The start of an end-to-end script: children die with it (installCleanup), the whole run is killed
 * after `timeoutMs` with its checks printed, and it gets a fresh folder `.e2e/<kind>-<time>-<pid>`
 * with `logs/`.
 * @param {{summary(): string}} t @param {string} kind @param {number} timeoutMs
 */
function beginRun(t, kind, timeoutMs) {
	installCleanup();
	const overall = setTimeout(() => {
		log(`overall timeout of ${timeoutMs / 1000} s reached: killing everything`);
		console.log(t.summary());
		killAll('SIGKILL');
		process.exit(1);
	}, timeoutMs);
	overall.unref();
	const runDir = path.join(ROOT, '.e2e', `${kind}-${new Date().toISOString().replace(/[:.]/g, '-')}-${process.pid}`);
	const logDir = path.join(runDir, 'logs');
	fs.mkdirSync(logDir, { recursive: true });
	return { overall, runDir, logDir };
}

/** Makes sure children die with us: normal exit, Ctrl-C, SIGTERM, crashes. */
function installCleanup(/** @type {() => Promise<void> | void} */ onSignal = async () => {}) {
	if (cleanupInstalled) return;
	cleanupInstalled = true;
	process.on('exit', () => killAll('SIGKILL'));
	let stopping = false;
	for (const sig of /** @type {NodeJS.Signals[]} */ (['SIGINT', 'SIGTERM', 'SIGHUP'])) {
		process.on(sig, () => {
			if (stopping) {
				killAll('SIGKILL');
				process.exit(130);
			}
			stopping = true;
			log(`${sig}: stopping`);
			const hard = setTimeout(() => {
				killAll('SIGKILL');
				process.exit(130);
			}, 15_000);
			hard.unref();
			Promise.resolve()
				.then(onSignal)
				.catch(() => {})
				.finally(async () => {
					await stopAll();
					process.exit(130);
				});
		});
	}
}

/**
 * Starts a child in its own process group (so n8n's task runners die with it), output captured
 * into `out` and teed to a log file.
 * @param {string} cmd @param {string[]} args
 * @param {{cwd?: string, env?: NodeJS.ProcessEnv, logFile?: string, echo?: boolean}} [opts]
 */
function startProcess(cmd, args, opts = {}) {
	const child = spawn(cmd, args, {
		cwd: opts.cwd ?? ROOT,
		env: opts.env ?? process.env,
		stdio: ['ignore', 'pipe', 'pipe'],
		detached: true,
	});
	children.add(child);
	const logStream = opts.logFile ? fs.createWriteStream(opts.logFile, { flags: 'a' }) : undefined;
	const proc = {
		child,
		stdout: '',
		stderr: '',
		/** @type {Promise<{code: number | null, signal: NodeJS.Signals | null}>} */
		exited: new Promise((resolve) => {
			child.on('close', (code, signal) => {
				children.delete(child);
				logStream?.end();
				resolve({ code, signal });
			});
			child.on('error', (err) => {
				proc.stderr += String(err);
			});
		}),
		/** Resolves with the first stdout/stderr text matching re. */
		waitFor(/** @type {RegExp} */ re, timeoutMs = 60_000) {
			return new Promise((resolve, reject) => {
				const check = () => {
					const m = re.exec(proc.stdout + proc.stderr);
					if (m) {
						cleanup();
						resolve(m);
					}
				};
				const onExit = () => {
					cleanup();
					reject(new Error(`${path.basename(cmd)} exited before printing ${re}:\n${tail(proc.stdout + proc.stderr)}`));
				};
				const timer = setTimeout(() => {
					cleanup();
					reject(new Error(`timed out after ${timeoutMs} ms waiting for ${re}:\n${tail(proc.stdout + proc.stderr)}`));
				}, timeoutMs);
				const cleanup = () => {
					clearTimeout(timer);
					child.stdout?.off('data', check);
					child.stderr?.off('data', check);
					child.off('close', onExit);
				};
				child.stdout?.on('data', check);
				child.stderr?.on('data', check);
				child.on('close', onExit);
				check();
			});
		},
		/** SIGTERM to the process group, SIGKILL after graceMs. Resolves with how it ended. */
		async stop(graceMs = 20_000) {
			if (child.exitCode !== null || child.signalCode !== null) return { code: child.exitCode, signal: child.signalCode, clean: child.exitCode === 0 };
			try {
				process.kill(-(/** @type {number} */ (child.pid)), 'SIGTERM');
			} catch {
				child.kill('SIGTERM');
			}
			let timer;
			const killed = new Promise((resolve) => {
				timer = setTimeout(() => {
					try {
						process.kill(-(/** @type {number} */ (child.pid)), 'SIGKILL');
					} catch {
						/* gone */
					}
					resolve('killed');
				}, graceMs);
			});
			const r = await Promise.race([proc.exited, killed]);
			clearTimeout(timer);
			const ended = await proc.exited;
			return { ...ended, clean: r !== 'killed' && (ended.code === 0 || ended.signal === 'SIGTERM') };
		},
	};
	child.stdout?.on('data', (d) => {
		proc.stdout += d;
		logStream?.write(d);
		if (opts.echo) process.stdout.write(d);
	});
	child.stderr?.on('data', (d) => {
		proc.stderr += d;
		logStream?.write(d);
		if (opts.echo) process.stderr.write(d);
	});
	return proc;
}

/** Stops every child still running (SIGTERM, then SIGKILL). */
async function stopAll() {
	const running = [...children];
	await Promise.all(
		running.map(async (child) => {
			if (!child.pid) return;
			try {
				process.kill(-child.pid, 'SIGTERM');
			} catch {
				return;
			}
			const done = new Promise((r) => child.once('close', r));
			const timer = new Promise((r) => setTimeout(r, 10_000));
			await Promise.race([done, timer]);
			try {
				process.kill(-child.pid, 'SIGKILL');
			} catch {
				/* gone */
			}
		}),
	);
}

/**
 * Runs a command to completion; rejects on a non-zero exit or timeout.
 * @param {string} cmd @param {string[]} args
 * @param {{cwd?: string, env?: NodeJS.ProcessEnv, logFile?: string, timeoutMs?: number, echo?: boolean, allowFail?: boolean}} [opts]
 */
async function run(cmd, args, opts = {}) {
	const proc = startProcess(cmd, args, opts);
	const timeoutMs = opts.timeoutMs ?? 300_000;
	let timedOut = false;
	const timer = setTimeout(() => {
		timedOut = true;
		void proc.stop(2000);
	}, timeoutMs);
	const { code, signal } = await proc.exited;
	clearTimeout(timer);
	const result = { code, signal, stdout: proc.stdout, stderr: proc.stderr };
	if (timedOut) throw new Error(`${cmd} ${args.join(' ')}: timed out after ${timeoutMs} ms\n${tail(proc.stdout + proc.stderr)}`);
	if (code !== 0 && !opts.allowFail) {
		throw new Error(`${cmd} ${args.join(' ')} (cwd ${opts.cwd ?? ROOT}) exited ${code ?? signal}\n${tail(proc.stdout + proc.stderr)}`);
	}
	return result;
}

function tail(text, lines = 40) {
	return text.split('\n').slice(-lines).join('\n');
}

/** A free TCP port on 127.0.0.1. */
function freePort() {
	return new Promise((resolve, reject) => {
		const srv = net.createServer();
		srv.unref();
		srv.on('error', reject);
		srv.listen(0, '127.0.0.1', () => {
			const { port } = /** @type {net.AddressInfo} */ (srv.address());
			srv.close(() => resolve(port));
		});
	});
}

module.exports = { beginRun, cleanupInstalled, freePort, installCleanup, killAll, log, run, since, startProcess, stopAll, tail };
