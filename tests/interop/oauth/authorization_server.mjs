// A real OAuth 2.1 authorization server for tests/oauth_flow.rs: `oidc-provider` (npm, pinned in
// ../package.json), a certified OpenID Provider, configured for an MCP server:
//
//   * dynamic client registration (RFC 7591) open to anyone, public clients
//     (`token_endpoint_auth_method: none`), authorization code only, PKCE (S256) required;
//   * resource indicators (RFC 8707): the one resource this server issues tokens for is the
//     `--resource` URL (the MCP endpoint, e.g. http://127.0.0.1:PORT/mcp); its access tokens are
//     JWTs (RFC 9068, `typ: at+jwt`) signed with a fresh ES256 key (kid `test-es256`), with `aud` = that URL and
//     `scope` limited to `notes:read notes:write`; any other resource is `invalid_target`;
//   * metadata at both /.well-known/oauth-authorization-server (RFC 8414) and
//     /.well-known/openid-configuration (the same document);
//   * accounts `alice` and `bob` (no passwords: this is a test AS), and a headless interaction
//     API built on oidc-provider's documented `interactionDetails` / `interactionFinished`:
//       GET  /interaction/:uid          -> JSON: the prompt (`login` or `consent`) and its details
//       POST /interaction/:uid/login    form `account=<id>`      -> 303 back to the authorization
//       POST /interaction/:uid/consent  form `scope=<granted>`   -> 303 back to the authorization
//                                       (the requested scopes not in `scope` are rejected)
//     A client follows these with the cookies the AS set, exactly as a browser would submit the
//     login and consent forms, so no HTML is involved.
//
// Usage: node authorization_server.mjs --resource http://127.0.0.1:PORT/mcp
// Listens on 127.0.0.1 on a free port, then prints ONE line on stdout:
//   {"issuer":"http://127.0.0.1:N","jwks_uri":"http://127.0.0.1:N/jwks","resource":"..."}
// and nothing else there (its log goes to stderr). It exits when stdin closes, so it never
// outlives the test that started it.

import http from 'node:http';
import { randomBytes } from 'node:crypto';
import { parseArgs } from 'node:util';

import Provider, { errors } from 'oidc-provider';
import { exportJWK, generateKeyPair } from 'jose';

const { values: options } = parseArgs({
    options: { resource: { type: 'string' } }
});
if (!options.resource) {
    console.error('usage: authorization_server.mjs --resource <the MCP endpoint URL>');
    process.exit(2);
}
const RESOURCE = options.resource;
const RESOURCE_SCOPES = 'notes:read notes:write';
const ACCOUNTS = new Set(['alice', 'bob']);

const log = (...args) => console.error('[authorization server]', ...args);
// stdout carries the one metadata line: oidc-provider's notices (console.info) and anything else
// logged go to stderr.
console.log = console.info = console.warn = console.debug = (...args) => console.error(...args);

// Keys made for this run only, read by the resource server through the JWKS like any RS would.
// Access tokens are signed with the ES256 one; the RS256 key (ID tokens', were any asked for)
// comes first in the set, so a verifier has to pick the key by the token's `kid`.
async function signingKey(alg, kid) {
    const { privateKey } = await generateKeyPair(alg, { extractable: true });
    return { ...(await exportJWK(privateKey)), kid, alg, use: 'sig' };
}
const keys = [await signingKey('RS256', 'test-rs256'), await signingKey('ES256', 'test-es256')];

// Bind first: the issuer has to name the port.
const server = http.createServer();
await new Promise((resolve, reject) => {
    server.once('error', reject);
    server.listen(0, '127.0.0.1', resolve);
});
const issuer = `http://127.0.0.1:${server.address().port}`;

const provider = new Provider(issuer, {
    jwks: { keys },
    cookies: { keys: [randomBytes(32).toString('base64url')] },
    // Every scope this AS knows. Clients register with (a subset of) these; the resource's
    // tokens carry only the resource's own scopes (getResourceServerInfo below).
    scopes: ['openid', 'notes:read', 'notes:write'],
    claims: { openid: ['sub'] },
    responseTypes: ['code'],
    clientDefaults: {
        grant_types: ['authorization_code'],
        response_types: ['code'],
        token_endpoint_auth_method: 'none'
    },
    pkce: { required: () => true },
    // Lifetimes, in seconds (set, rather than oidc-provider's defaults with their notices).
    ttl: {
        AccessToken: 10 * 60,
        AuthorizationCode: 60,
        Grant: 60 * 60,
        Interaction: 10 * 60,
        Session: 60 * 60
    },
    async findAccount(_ctx, id) {
        if (!ACCOUNTS.has(id)) return undefined;
        return { accountId: id, claims: async () => ({ sub: id }) };
    },
    interactions: { url: (_ctx, interaction) => `/interaction/${interaction.uid}` },
    features: {
        devInteractions: { enabled: false },
        registration: { enabled: true },
        resourceIndicators: {
            enabled: true,
            // A request naming no resource gets one for the MCP server all the same.
            defaultResource: () => RESOURCE,
            useGrantedResource: () => true,
            getResourceServerInfo(_ctx, resourceIndicator) {
                if (resourceIndicator !== RESOURCE) {
                    throw new errors.InvalidTarget(`this server issues tokens for ${RESOURCE} only`);
                }
                return {
                    scope: RESOURCE_SCOPES,
                    audience: RESOURCE,
                    accessTokenTTL: 10 * 60,
                    accessTokenFormat: 'jwt',
                    jwt: { sign: { alg: 'ES256' } }
                };
            }
        }
    }
});
provider.on('server_error', (_ctx, error) => log('server_error', error));
provider.on('authorization.error', (_ctx, error) => log('authorization.error', error.message, error.error_description ?? ''));
provider.on('grant.error', (_ctx, error) => log('grant.error', error.message, error.error_description ?? ''));
provider.on('registration_create.error', (_ctx, error) => log('registration error', error.message, error.error_description ?? ''));

const oidc = provider.callback();

function readForm(req) {
    return new Promise((resolve, reject) => {
        const chunks = [];
        req.on('data', chunk => chunks.push(chunk));
        req.on('end', () => resolve(new URLSearchParams(Buffer.concat(chunks).toString('utf8'))));
        req.on('error', reject);
    });
}

function sendJson(res, status, body) {
    res.statusCode = status;
    res.setHeader('content-type', 'application/json');
    res.setHeader('cache-control', 'no-store');
    res.end(JSON.stringify(body));
}

/** The headless login and consent "pages". */
async function interaction(req, res, uid, action) {
    const details = await provider.interactionDetails(req, res);
    if (details.uid !== uid) {
        return sendJson(res, 400, { error: 'interaction cookie does not match the URL' });
    }
    const { prompt, params, session, grantId } = details;
    if (req.method === 'GET' && action === undefined) {
        return sendJson(res, 200, {
            uid,
            prompt,
            client_id: params.client_id,
            scope: params.scope,
            resource: params.resource,
            account: session?.accountId
        });
    }
    if (req.method !== 'POST') {
        return sendJson(res, 405, { error: 'method not allowed' });
    }
    const form = await readForm(req);
    if (action === 'login' && prompt.name === 'login') {
        const account = form.get('account');
        if (!ACCOUNTS.has(account)) {
            return sendJson(res, 400, { error: `no account ${account}` });
        }
        log(`login: ${account}`);
        return provider.interactionFinished(req, res, { login: { accountId: account } }, { mergeWithLastSubmission: false });
    }
    if (action === 'consent' && prompt.name === 'consent') {
        const approved = new Set((form.get('scope') ?? '').split(' ').filter(Boolean));
        const grant = grantId
            ? await provider.Grant.find(grantId)
            : new provider.Grant({ accountId: session.accountId, clientId: params.client_id });
        const { missingOIDCScope, missingOIDCClaims, missingResourceScopes } = prompt.details;
        if (missingOIDCScope) {
            grant.addOIDCScope(missingOIDCScope.join(' '));
        }
        if (missingOIDCClaims) {
            grant.addOIDCClaims(missingOIDCClaims);
        }
        for (const [indicator, scopes] of Object.entries(missingResourceScopes ?? {})) {
            const granted = scopes.filter(scope => approved.has(scope));
            const refused = scopes.filter(scope => !approved.has(scope));
            if (granted.length) grant.addResourceScope(indicator, granted.join(' '));
            if (refused.length) grant.rejectResourceScope(indicator, refused.join(' '));
            log(`consent: ${session.accountId} grants ${indicator} [${granted}] refuses [${refused}]`);
        }
        const result = { consent: { grantId: await grant.save() } };
        return provider.interactionFinished(req, res, result, { mergeWithLastSubmission: true });
    }
    return sendJson(res, 400, { error: `cannot ${action} during the ${prompt.name} prompt` });
}

server.on('request', (req, res) => {
    const url = new URL(req.url, issuer);
    // RFC 8414's well-known name for the same metadata document.
    if (url.pathname === '/.well-known/oauth-authorization-server') {
        req.url = `/.well-known/openid-configuration${url.search}`;
        return oidc(req, res);
    }
    const match = /^\/interaction\/([^/]+)(?:\/(login|consent))?$/.exec(url.pathname);
    if (match) {
        return interaction(req, res, match[1], match[2]).catch(error => {
            log('interaction failed:', error);
            if (!res.headersSent) sendJson(res, 400, { error: String(error.message ?? error) });
        });
    }
    return oidc(req, res);
});

// What the AS itself publishes (which also shows it answers), not what it is assumed to.
const discovery = await (await fetch(`${issuer}/.well-known/oauth-authorization-server`)).json();
const metadata = { issuer: discovery.issuer, jwks_uri: discovery.jwks_uri, resource: RESOURCE };
process.stdout.write(`${JSON.stringify(metadata)}\n`);
log(`listening: ${JSON.stringify(metadata)}`);

// Gone with the test: stdin is the test's pipe.
process.stdin.on('end', () => process.exit(0));
process.stdin.on('error', () => process.exit(0));
process.stdin.resume();
