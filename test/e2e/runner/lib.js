// @ts-check
/**
 * The library of the end-to-end suite (test/e2e/runner/run.js), the queue-mode suite
 * (test/e2e/queue/run.js) and the demo (test/e2e/runner/demo.js), gathered from one module per
 * concern:
 *   package-info.js  this package's folder, name and version; the credentials and owner used
 *   processes.js     logging, child processes in their own process groups, cleanup, run timeout
 *   n8n-install.js   the cached n8n runtime and Node.js, building and installing this package
 *   instance.js      one n8n instance: environment, import / execute / start, output parsing
 *   rest.js          n8n's REST API client (owner login, API key)
 *   examples.js      the example workflows and what a workflow needs from the build
 *
 * Plain Node.js (CommonJS), no dependencies beyond what `npm ci` installs.
 */
'use strict';

const packageInfo = require('./package-info');
const install = require('./n8n-install');

module.exports = {
	...packageInfo,
	PACKAGE_VERSION: packageInfo.PACKAGE.version,
	...require('./processes'),
	...install,
	...require('./instance'),
	...require('./rest'),
	...require('./examples'),
};
delete module.exports.PACKAGE;
delete module.exports.MARKER;
/** The selected n8n version (N8N_DEFAULT unless selectN8n chose another): read live from n8n-install.js. */
Object.defineProperty(module.exports, 'N8N_VERSION', { enumerable: true, get: () => install.N8N_VERSION });
