// The MCP Apps browser check: a real headless Chromium (Debian's, at /usr/bin/chromium unless
// CHROMIUM says otherwise; driven by playwright-core, which downloads nothing) opens the test
// host page (host.html + host.ts, bundled here by esbuild), which connects to the server with
// the official TypeScript SDK client over Streamable HTTP and renders the tool's `ui://` page
// through the official host-side bridge of @modelcontextprotocol/ext-apps.
//
//   node browser/drive.mjs <server-mcp-url> [--era legacy|auto]
//
// The page and the server are reached through one origin (this script serves the host page
// and forwards `/mcp` to the server), as a web host would put them behind its own backend.
// Checks, each waiting for its event: the host listed the tools and called `get_weather`; the
// view in the sandboxed iframe shows Paris at 18.5 °C (its DOM); a click on its unit button
// makes the view call the tool through the bridge, and 65.3 °F is shown. Prints one `ok`/`FAIL`
// line per check and exits 1 on any mismatch (with the page's console and the host's state).

import http from 'node:http';
import { readFile } from 'node:fs/promises';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

import { build } from 'esbuild';
import { chromium } from 'playwright-core';

const here = dirname(fileURLToPath(import.meta.url));
const [serverUrl, ...rest] = process.argv.slice(2);
const era = rest[0] === '--era' ? rest[1] : 'legacy';
if (!serverUrl || !['legacy', 'auto'].includes(era)) {
    console.error('usage: drive.mjs <server-mcp-url> [--era legacy|auto]');
    process.exit(2);
}

let passed = 0;
const failures = [];
const ok = what => {
    passed += 1;
    console.log(`ok   ${what}`);
};
const fail = what => {
    failures.push(what);
    console.log(`FAIL ${what}`);
};
const check = (condition, what, detail) => (condition ? ok(what) : fail(`${what}: ${JSON.stringify(detail)}`));

const bundle = await build({
    entryPoints: [join(here, 'host.ts')],
    bundle: true,
    format: 'esm',
    platform: 'browser',
    target: 'chrome120',
    write: false,
    logLevel: 'warning'
});
const hostJs = bundle.outputFiles[0].text;
const hostHtml = await readFile(join(here, 'host.html'), 'utf8');
const upstream = new URL(serverUrl);

const site = http.createServer((request, response) => {
    const path = new URL(request.url, 'http://host').pathname;
    if (path === '/') {
        response.writeHead(200, { 'content-type': 'text/html; charset=utf-8' }).end(hostHtml);
    } else if (path === '/host.js') {
        response.writeHead(200, { 'content-type': 'text/javascript' }).end(hostJs);
    } else if (path === '/mcp') {
        const headers = { ...request.headers, host: upstream.host };
        const forwarded = http.request(upstream, { method: request.method, headers }, answer => {
            response.writeHead(answer.statusCode ?? 502, answer.headers);
            answer.pipe(response);
        });
        forwarded.on('error', error => response.writeHead(502).end(String(error)));
        request.pipe(forwarded);
    } else if (path === '/favicon.ico') {
        response.writeHead(204).end();
    } else {
        response.writeHead(404).end();
    }
});
await new Promise(resolve => site.listen(0, '127.0.0.1', resolve));
const origin = `http://127.0.0.1:${site.address().port}`;

const browser = await chromium.launch({
    executablePath: process.env.CHROMIUM || '/usr/bin/chromium',
    // The container runs as root, where Chromium's own sandbox cannot start; the iframe's
    // `sandbox` attribute, which is what the test is about, is enforced all the same.
    args: ['--no-sandbox']
});
const consoleLines = [];
let page;
try {
    ok(`launched ${browser.version()}`);
    page = await browser.newPage();
    page.on('console', message => consoleLines.push(`[${message.type()}] ${message.text()}`));
    page.on('pageerror', error => consoleLines.push(`[pageerror] ${error.message}`));
    await page.goto(`${origin}/?era=${era}`);

    const state = () => page.evaluate(() => window.hostState);
    // 'view loading' can be over before a poll sees it (the view may initialize in between, on
    // a loaded machine the polls are far apart): either step of the view will do.
    await page.waitForFunction(() => window.hostState && (['view loading', 'view initialized'].includes(window.hostState.step) || window.hostState.error));
    let host = await state();
    if (host.error) throw new Error(`the host failed: ${host.error}`);
    check(host.era === (era === 'auto' ? 'modern' : 'legacy'), `the SDK client connected over Streamable HTTP (${host.era}, ${host.protocolVersion})`, host);
    check(host.serverDeclaresUi, 'the server declares io.modelcontextprotocol/ui', host);
    check(JSON.stringify(host.tools) === JSON.stringify(['get_weather']), 'the host listed the tools', host.tools);
    check(host.resourceUri === 'ui://weather/forecast', 'get_weather names its page in _meta.ui.resourceUri', host.resourceUri);
    check(host.firstResult?.city === 'Paris' && host.firstResult?.temperature === 18.5, 'the host called get_weather', host.firstResult);
    check(host.mimeType === 'text/html;profile=mcp-app', 'the page was read as text/html;profile=mcp-app', host.mimeType);

    const sandbox = await page.locator('iframe#app').getAttribute('sandbox');
    check(sandbox === 'allow-scripts', 'the page runs in a sandboxed iframe', sandbox);
    const view = page.frameLocator('iframe#app');
    await view.locator('#city', { hasText: 'Paris' }).waitFor();
    const shown = async () => ({
        city: await view.locator('#city').textContent(),
        temperature: await view.locator('#temperature').textContent(),
        unit: await view.locator('#unit').textContent(),
        condition: await view.locator('#condition').textContent(),
        humidity: await view.locator('#humidity').textContent()
    });
    const first = await shown();
    check(
        first.temperature === '18.5' && first.unit === '°C' && first.condition === 'partly cloudy' && first.humidity === '62',
        'the view renders the tool result the host sent (Paris, 18.5 °C)',
        first
    );

    await view.locator('#toggle-units').click();
    await view.locator('#unit', { hasText: '°F' }).waitFor();
    const second = await shown();
    check(second.city === 'Paris' && second.temperature === '65.3' && second.unit === '°F', 'after the click the view renders the new result (65.3 °F)', second);
    host = await state();
    check(
        JSON.stringify(host.bridgedCalls) === JSON.stringify([{ name: 'get_weather', arguments: { city: 'Paris', units: 'fahrenheit' } }]),
        "the click called get_weather through the host's bridge",
        host.bridgedCalls
    );
} catch (error) {
    fail(`unexpected error: ${error instanceof Error ? error.stack : error}`);
    if (page) {
        const host = await page.evaluate(() => window.hostState).catch(() => undefined);
        console.error('host state:', JSON.stringify(host, null, 2));
    }
} finally {
    await browser.close();
    site.close();
}
if (failures.length > 0) {
    console.error('page console:\n' + consoleLines.join('\n'));
}
console.log(`browser (${era}) weather app: ${passed} checks held, ${failures.length} mismatched`);
process.exit(failures.length > 0 ? 1 : 0);
