// @ts-check
/**
 * Debian's redis-server and PostgreSQL for the queue-mode end-to-end test, on 127.0.0.1, free
 * ports, data in a temporary folder. Installed with apt-get when missing (as root). Both run as
 * children of this process (lib.startProcess: own process group, killed on exit).
 *
 * PostgreSQL refuses to run as root, so as root it runs as the `postgres` user (runuser); as any
 * other user it runs as that user.
 */
'use strict';

const fs = require('node:fs');
const path = require('node:path');

const lib = require('../runner/lib');

const { log, run } = lib;
const isRoot = () => process.getuid?.() === 0;

/** apt-get install when a file is missing (as root); throws with the command to run otherwise. */
async function aptEnsure(/** @type {string} */ probe, /** @type {string[]} */ packages) {
	if (probe && fs.existsSync(probe)) return;
	if (!isRoot()) throw new Error(`${probe} is missing: install it with "sudo apt-get install -y ${packages.join(' ')}"`);
	log(`apt-get install -y ${packages.join(' ')}`);
	const env = { ...process.env, DEBIAN_FRONTEND: 'noninteractive' };
	const args = ['install', '-y', '--no-install-recommends', ...packages];
	const first = await run('apt-get', args, { env, allowFail: true, timeoutMs: 10 * 60_000 });
	if (first.code !== 0) {
		await run('apt-get', ['update'], { env, timeoutMs: 5 * 60_000 });
		await run('apt-get', args, { env, timeoutMs: 10 * 60_000 });
	}
}

/** The newest /usr/lib/postgresql/<ver>/bin with initdb, or undefined. */
function postgresBinDir() {
	const base = '/usr/lib/postgresql';
	if (!fs.existsSync(base)) return undefined;
	const versions = fs
		.readdirSync(base)
		.filter((v) => fs.existsSync(path.join(base, v, 'bin', 'initdb')))
		.sort((a, b) => Number(b) - Number(a));
	return versions.length ? path.join(base, versions[0], 'bin') : undefined;
}

/**
 * redis-server on 127.0.0.1:<free port>, no persistence.
 * @param {{dir: string, logDir: string}} o
 */
async function startRedis({ dir, logDir }) {
	await aptEnsure('/usr/bin/redis-server', ['redis-server']);
	const port = await lib.freePort();
	fs.mkdirSync(dir, { recursive: true });
	const proc = lib.startProcess(
		'/usr/bin/redis-server',
		['--port', String(port), '--bind', '127.0.0.1', '--save', '', '--appendonly', 'no', '--daemonize', 'no', '--dir', dir, '--protected-mode', 'yes'],
		{ cwd: dir, logFile: path.join(logDir, 'redis.log') },
	);
	await proc.waitFor(/Ready to accept connections/, 30_000);
	const version = (await run('/usr/bin/redis-server', ['--version'])).stdout.trim().split(/\s+/).find((w) => w.startsWith('v='))?.slice(2);
	log(`redis-server ${version ?? ''} on 127.0.0.1:${port}`);
	return {
		port,
		proc,
		/** redis-cli against this server; returns stdout. */
		async cli(/** @type {string[]} */ args) {
			const r = await run('/usr/bin/redis-cli', ['-h', '127.0.0.1', '-p', String(port), '--no-raw', ...args], { timeoutMs: 15_000 });
			return r.stdout.trim();
		},
		async stop() {
			return await proc.stop(10_000);
		},
	};
}

/**
 * PostgreSQL (Debian's) on 127.0.0.1:<free port>, trust auth for local connections, a database
 * `n8n`. Data in <dir>/data (owned by postgres when we are root).
 * @param {{dir: string, logDir: string}} o
 */
async function startPostgres({ dir, logDir }) {
	let bin = postgresBinDir();
	if (!bin) {
		await aptEnsure('', ['postgresql']);
		bin = postgresBinDir();
		if (!bin) throw new Error('apt-get installed postgresql but /usr/lib/postgresql/<ver>/bin/initdb is missing');
	}
	const data = path.join(dir, 'data');
	fs.mkdirSync(dir, { recursive: true });
	/** @type {(cmd: string, args: string[]) => [string, string[]]} */
	let as = (cmd, args) => [cmd, args];
	if (isRoot()) {
		// The postgres user must reach the folder: every parent up to / needs o+x.
		for (let d = dir; d !== path.dirname(d); d = path.dirname(d)) {
			const mode = fs.statSync(d).mode;
			if ((mode & 0o001) === 0) fs.chmodSync(d, mode | 0o711);
		}
		await run('chown', ['-R', 'postgres:postgres', dir]);
		as = (cmd, args) => ['runuser', ['-u', 'postgres', '--', cmd, ...args]];
	}
	const port = await lib.freePort();
	const version = path.basename(path.dirname(bin));
	await run(...as(path.join(bin, 'initdb'), ['-D', data, '-U', 'postgres', '-A', 'trust', '-E', 'UTF8', '--locale=C', '--no-sync']), {
		cwd: dir,
		logFile: path.join(logDir, 'postgres-initdb.log'),
		timeoutMs: 120_000,
	});
	const proc = lib.startProcess(
		...as(path.join(bin, 'postgres'), [
			'-D', data,
			'-p', String(port),
			'-c', 'listen_addresses=127.0.0.1',
			'-c', `unix_socket_directories=${dir}`,
			'-c', 'fsync=off',
			'-c', 'synchronous_commit=off',
			'-c', 'full_page_writes=off',
			'-c', 'max_connections=200',
		]),
		{ cwd: dir, logFile: path.join(logDir, 'postgres.log') },
	);
	await proc.waitFor(/database system is ready to accept connections/, 60_000);
	const psql = async (/** @type {string} */ sql, db = 'postgres') => {
		const r = await run(path.join(bin, 'psql'), ['-h', '127.0.0.1', '-p', String(port), '-U', 'postgres', '-d', db, '-v', 'ON_ERROR_STOP=1', '-At', '-c', sql], { timeoutMs: 30_000 });
		return r.stdout.trim();
	};
	await psql('CREATE DATABASE n8n');
	log(`postgresql ${version} on 127.0.0.1:${port} (data in ${data})`);
	return {
		port,
		database: 'n8n',
		user: 'postgres',
		proc,
		psql,
		/** SIGINT = fast shutdown (SIGTERM would wait for clients); SIGKILL after the grace time. */
		async stop() {
			if (proc.child.exitCode !== null || proc.child.signalCode !== null) return { clean: true };
			try {
				process.kill(-(/** @type {number} */ (proc.child.pid)), 'SIGINT');
			} catch {
				/* gone */
			}
			let timer;
			const ended = await Promise.race([proc.exited, new Promise((r) => (timer = setTimeout(() => r(undefined), 15_000)))]);
			clearTimeout(timer);
			if (!ended) return { ...(await proc.stop(1000)), clean: false };
			return { ...ended, clean: ended.code === 0 };
		},
	};
}

module.exports = { startRedis, startPostgres, postgresBinDir, aptEnsure };
