// An official TypeScript SDK client through the whole MCP authorization flow against a real
// authorization server (./authorization_server.mjs): `@modelcontextprotocol/sdk` v1 (`--sdk v1`,
// the default; legacy era only) or `@modelcontextprotocol/client` v2 (`--sdk v2`, with
// `--era legacy` its default connect, or `--era auto`, which reaches 2026-07-28):
//
//   401 + `WWW-Authenticate: Bearer resource_metadata=...`  -> RFC 9728 protected resource
//   metadata -> RFC 8414 authorization server metadata -> RFC 7591 dynamic registration ->
//   authorization code + PKCE (S256) with the RFC 8707 `resource` -> token request (with
//   `resource` again) -> MCP calls with the bearer token.
//
// Everything above is the SDK's own `auth()` driven by `StreamableHTTPClientTransport`; this
// program supplies only the `OAuthClientProvider` (in-memory storage) and the "browser": its
// `redirectToAuthorization(url)` follows the authorization URL headlessly, logs in as
// `--account` and consents through the AS's interaction API (GET the prompt as JSON, POST the
// login / consent form, with the AS's cookies), and captures the `code` from the redirect to
// the client's `redirect_uri` (nothing listens there: the redirect is read, not followed).
// Then, as an app does, it calls `transport.finishAuth(...)` (v1: the code; v2: the callback's
// parameters, so the SDK checks `iss` itself) and connects again.
//
//   node oauth/client_flow.ts <mcp-url> [--sdk v1|v2] [--era legacy|auto] --account alice
//       my_notes, add_note, my_notes with everything the resource offers.
//   node oauth/client_flow.ts <mcp-url> --account bob --initial-scope notes:read
//       the first authorization asks only for notes:read (the SDK itself always asks for the
//       resource metadata's `scopes_supported` when the 401 names no scope, so the provider
//       narrows that first URL); then add_note meets 403 insufficient_scope and the SDK steps
//       up: it starts a new authorization (v1: for the scope the 403 names; v2: for the union
//       of that and the token's), the provider completes it (the user consents to the new
//       scope), and the program finishes it and retries.
//
// It checks as it goes (exit 1 with the reason on any surprise) and prints one JSON summary
// line on stdout: the URLs fetched, the metadata seen, each authorization's scope/resource,
// each token's verified claims, every call's outcome and every step-up.

import { parseArgs } from 'node:util';
import { randomBytes } from 'node:crypto';

import { Client as ClientV1 } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport as TransportV1 } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { UnauthorizedError as UnauthorizedV1, type OAuthClientProvider, type OAuthDiscoveryState } from '@modelcontextprotocol/sdk/client/auth.js';
import type { OAuthClientInformationMixed, OAuthClientMetadata, OAuthTokens } from '@modelcontextprotocol/sdk/shared/auth.js';
import { Client as ClientV2, StreamableHTTPClientTransport as TransportV2, UnauthorizedError as UnauthorizedV2 } from '@modelcontextprotocol/client';
import { createRemoteJWKSet, decodeProtectedHeader, jwtVerify, type JWTPayload } from 'jose';

const { positionals, values: cli } = parseArgs({
    allowPositionals: true,
    options: {
        account: { type: 'string', default: 'alice' },
        sdk: { type: 'string', default: 'v1' },
        era: { type: 'string', default: 'legacy' },
        'initial-scope': { type: 'string' }
    }
});
if (positionals.length !== 1) {
    console.error('usage: client_flow.ts <mcp-url> [--account alice] [--initial-scope "notes:read"]');
    process.exit(2);
}
const mcpUrl = new URL(positionals[0]);
const account = cli.account;
const sdk = cli.sdk;
const era = cli.era;
if (!(sdk === 'v1' && era === 'legacy') && !(sdk === 'v2' && (era === 'legacy' || era === 'auto'))) {
    console.error(`--sdk ${sdk} --era ${era}: v1 speaks legacy only; v2 legacy or auto`);
    process.exit(2);
}
const REDIRECT_URL = 'http://127.0.0.1:1/oauth/callback';

const log = (...args: unknown[]) => console.error(`[client ${sdk} ${account}]`, ...args);

class Failure extends Error {}
function check(condition: unknown, message: string): asserts condition {
    if (!condition) throw new Failure(message);
}

// --- what the SDK fetched: every request it made, in order ------------------------------------

interface Fetched {
    method: string;
    url: string;
    status: number;
    /** For 401 and 403 answers: their `WWW-Authenticate`. */
    challenge?: string;
    /** For form posts to the AS (the token request): the parameters. */
    form?: Record<string, string>;
}
const fetched: Fetched[] = [];

const recordingFetch: typeof fetch = async (input, init) => {
    const url = input instanceof Request ? input.url : String(input);
    const method = init?.method ?? (input instanceof Request ? input.method : 'GET');
    const response = await fetch(input, init);
    const entry: Fetched = { method, url, status: response.status };
    if (response.status === 401 || response.status === 403) {
        entry.challenge = response.headers.get('www-authenticate') ?? '<none>';
    }
    if (init?.body instanceof URLSearchParams) {
        entry.form = Object.fromEntries(init.body);
        // A token request carries a one-time code and verifier; show that they were sent.
        for (const secret of ['code', 'code_verifier']) {
            if (entry.form[secret]) entry.form[secret] = `<${entry.form[secret].length} chars>`;
        }
    }
    fetched.push(entry);
    return response;
};

// --- the "browser": a cookie jar and the AS's interaction API --------------------------------

const cookies = new Map<string, string>();
function keepCookies(response: Response) {
    for (const line of response.headers.getSetCookie()) {
        const [pair, ...attributes] = line.split(';');
        const at = pair.indexOf('=');
        const name = pair.slice(0, at).trim();
        const value = pair.slice(at + 1).trim();
        const expired = attributes.some(attribute => {
            const [key, v] = attribute.trim().split('=');
            return (key.toLowerCase() === 'max-age' && Number(v) <= 0)
                || (key.toLowerCase() === 'expires' && Date.parse(v) < Date.now());
        });
        if (expired || value === '') cookies.delete(name);
        else cookies.set(name, value);
    }
}
function cookieHeader(): Record<string, string> {
    return cookies.size ? { cookie: [...cookies].map(([k, v]) => `${k}=${v}`).join('; ') } : {};
}

interface Authorization {
    /** The authorization request's parameters, as the SDK built them (after any narrowing). */
    scope: string | null;
    resource: string | null;
    code_challenge_method: string | null;
    has_code_challenge: boolean;
    /** The interaction prompts met on the way (`login`, `consent`), with what was consented. */
    prompts: { name: string; reasons: string[]; consented?: string }[];
    /** The redirect back to the client: `iss` (RFC 9207) and whether the state matched. */
    iss: string | null;
    state_matched: boolean;
}

/** Follow `start` as a browser would, to the redirect back to the client: its parameters. */
async function authorizeHeadlessly(start: URL, expectedState: string | undefined): Promise<{ callback: URLSearchParams; record: Authorization }> {
    const record: Authorization = {
        scope: start.searchParams.get('scope'),
        resource: start.searchParams.get('resource'),
        code_challenge_method: start.searchParams.get('code_challenge_method'),
        has_code_challenge: !!start.searchParams.get('code_challenge'),
        prompts: [],
        iss: null,
        state_matched: false
    };
    let url = start;
    let request: RequestInit = { method: 'GET' };
    for (let step = 0; step < 20; step += 1) {
        const response = await fetch(url, { ...request, redirect: 'manual', headers: { ...(request.headers as Record<string, string>), ...cookieHeader() } });
        keepCookies(response);
        request = { method: 'GET' };
        if (response.status >= 300 && response.status < 400) {
            await response.body?.cancel();
            const next = new URL(response.headers.get('location') ?? '', url);
            if (next.href.startsWith(REDIRECT_URL)) {
                const error = next.searchParams.get('error');
                check(!error, `the AS answered the authorization with ${error}: ${next.searchParams.get('error_description')}`);
                const code = next.searchParams.get('code');
                check(code, `no code in the redirect ${next.href}`);
                record.iss = next.searchParams.get('iss');
                record.state_matched = next.searchParams.get('state') === (expectedState ?? null);
                check(record.state_matched, `state ${next.searchParams.get('state')} is not ${expectedState}`);
                return { callback: next.searchParams, record };
            }
            url = next;
            continue;
        }
        const body = await response.text();
        check(response.ok, `${url.href} answered ${response.status}: ${body}`);
        const page = JSON.parse(body) as { uid: string; prompt: { name: string; reasons: string[] }; scope?: string };
        const form = new URLSearchParams();
        if (page.prompt.name === 'login') {
            form.set('account', account);
            record.prompts.push({ name: 'login', reasons: page.prompt.reasons });
        } else if (page.prompt.name === 'consent') {
            // The user approves what this authorization asks for.
            form.set('scope', page.scope ?? '');
            record.prompts.push({ name: 'consent', reasons: page.prompt.reasons, consented: page.scope ?? '' });
        } else {
            throw new Failure(`unexpected prompt ${page.prompt.name}`);
        }
        url = new URL(`${url.pathname}/${page.prompt.name}`, url);
        request = { method: 'POST', body: form, headers: { 'content-type': 'application/x-www-form-urlencoded' } };
    }
    throw new Failure('the authorization did not come back to the redirect URI within 20 steps');
}

// --- the OAuthClientProvider: in-memory storage plus the browser above -------------------------

class HeadlessProvider implements OAuthClientProvider {
    private client?: OAuthClientInformationMixed;
    private stored?: OAuthTokens;
    private verifier?: string;
    private expectedState?: string;
    private discovered?: OAuthDiscoveryState;
    /** The redirect's parameters (`code`, `state`, `iss`) the last authorization brought back. */
    pendingCallback?: URLSearchParams;
    readonly authorizations: Authorization[] = [];
    registered?: OAuthClientInformationMixed;

    private readonly initialScope: string | undefined;

    constructor(initialScope: string | undefined) {
        this.initialScope = initialScope;
    }

    get redirectUrl() {
        return REDIRECT_URL;
    }
    get clientMetadata(): OAuthClientMetadata {
        return {
            client_name: 'mcp-rs oauth_flow test',
            redirect_uris: [REDIRECT_URL],
            grant_types: ['authorization_code'],
            response_types: ['code'],
            token_endpoint_auth_method: 'none'
        };
    }
    state() {
        this.expectedState = randomBytes(16).toString('base64url');
        return this.expectedState;
    }
    clientInformation() {
        return this.client;
    }
    saveClientInformation(information: OAuthClientInformationMixed) {
        this.client = information;
        this.registered ??= information;
    }
    tokens() {
        return this.stored;
    }
    saveTokens(tokens: OAuthTokens) {
        this.stored = tokens;
    }
    // Kept like the code verifier, so the SDK discovers once and (v2) can check that the code
    // comes back from the authorization server it was sent to.
    saveDiscoveryState(state: OAuthDiscoveryState) {
        this.discovered = state;
    }
    discoveryState() {
        return this.discovered;
    }
    saveCodeVerifier(verifier: string) {
        this.verifier = verifier;
    }
    codeVerifier() {
        check(this.verifier, 'the SDK asked for a code verifier before saving one');
        return this.verifier;
    }
    async redirectToAuthorization(url: URL) {
        if (this.initialScope !== undefined && this.authorizations.length === 0) {
            log(`first authorization: asking for "${this.initialScope}" instead of "${url.searchParams.get('scope')}"`);
            url.searchParams.set('scope', this.initialScope);
        }
        log(`authorizing: scope="${url.searchParams.get('scope')}" resource=${url.searchParams.get('resource')}`);
        const { callback, record } = await authorizeHeadlessly(url, this.expectedState);
        this.authorizations.push(record);
        this.pendingCallback = callback;
    }
    takeCallback(): URLSearchParams {
        check(this.pendingCallback, 'no authorization is pending');
        const callback = this.pendingCallback;
        this.pendingCallback = undefined;
        return callback;
    }
}

// --- the flow ------------------------------------------------------------------------------------

const provider = new HeadlessProvider(cli['initial-scope']);

/** What a call answered, in the shape both SDKs share. */
interface ToolResult {
    content: { type: string; text?: string }[];
    isError?: boolean;
}

/** One connection through either SDK: its client and its transport, seen the same way. */
interface Connection {
    connect(): Promise<void>;
    finishAuth(callback: URLSearchParams): Promise<void>;
    listTools(): Promise<string[]>;
    callTool(name: string, args: Record<string, unknown>): Promise<ToolResult>;
    negotiated(): { era?: string; protocolVersion?: string };
    close(): Promise<void>;
}

const clientInfo = { name: 'mcp-rs-oauth-flow', version: '0.0.0' };

function connectionV1(): Connection {
    const transport = new TransportV1(mcpUrl, { authProvider: provider, fetch: recordingFetch });
    const client = new ClientV1(clientInfo);
    return {
        connect: () => client.connect(transport),
        finishAuth: callback => transport.finishAuth(callback.get('code') ?? ''),
        listTools: async () => (await client.listTools()).tools.map(tool => tool.name),
        callTool: async (name, args) => (await client.callTool({ name, arguments: args })) as ToolResult,
        negotiated: () => ({ era: 'legacy', protocolVersion: transport.protocolVersion }),
        close: () => client.close()
    };
}

function connectionV2(): Connection {
    const transport = new TransportV2(mcpUrl, { authProvider: provider, fetch: recordingFetch });
    const client = new ClientV2(clientInfo, era === 'auto' ? { versionNegotiation: { mode: 'auto' } } : {});
    return {
        connect: () => client.connect(transport),
        // The callback's parameters: the SDK checks `iss` (RFC 9207) against the AS metadata.
        finishAuth: callback => transport.finishAuth(callback),
        listTools: async () => (await client.listTools()).tools.map(tool => tool.name),
        callTool: async (name, args) => (await client.callTool({ name, arguments: args })) as ToolResult,
        negotiated: () => ({ era: client.getProtocolEra(), protocolVersion: client.getNegotiatedProtocolVersion() }),
        close: () => client.close()
    };
}

const newConnection = sdk === 'v1' ? connectionV1 : connectionV2;
const unauthorized = (error: unknown) => error instanceof UnauthorizedV1 || error instanceof UnauthorizedV2;

interface TokenSeen {
    header: { alg?: string; typ?: string; kid?: string };
    claims: JWTPayload & { scope?: string; client_id?: string };
    verified_against: string;
}
const tokens: TokenSeen[] = [];
let issuer: string | undefined;
let jwksUri: string | undefined;
let protectedResource: Record<string, unknown> | undefined;

/** The token the SDK holds, verified against the AS's JWKS (signature, iss, aud, exp). */
async function verifyCurrentToken(): Promise<TokenSeen> {
    const access = provider.tokens()?.access_token;
    check(access, 'the SDK holds no access token');
    check(issuer && jwksUri, 'no authorization server metadata was fetched');
    const resource = String(protectedResource?.resource);
    const { payload, protectedHeader } = await jwtVerify(access, createRemoteJWKSet(new URL(jwksUri)), {
        issuer,
        audience: resource,
        algorithms: ['ES256', 'RS256'],
        requiredClaims: ['iss', 'aud', 'sub', 'exp', 'scope']
    });
    check(decodeProtectedHeader(access).alg === protectedHeader.alg, 'header changed');
    check(payload.sub === account, `the token's sub is ${payload.sub}, not ${account}`);
    const seen = { header: { alg: protectedHeader.alg, typ: protectedHeader.typ, kid: protectedHeader.kid }, claims: payload, verified_against: jwksUri };
    tokens.push(seen);
    log(`token: sub=${payload.sub} aud=${payload.aud} scope="${payload.scope}"`);
    return seen;
}

/** Learn what discovery found from the requests the SDK made. */
async function readDiscovery() {
    const prm = fetched.find(f => f.url.includes('/.well-known/oauth-protected-resource') && f.status === 200);
    check(prm, 'the SDK never fetched protected resource metadata');
    protectedResource = await (await fetch(prm.url)).json();
    const asm = fetched.find(f => /\/\.well-known\/(oauth-authorization-server|openid-configuration)/.test(f.url) && f.status === 200);
    check(asm, 'the SDK never fetched authorization server metadata');
    const metadata = await (await fetch(asm.url)).json();
    issuer = metadata.issuer;
    jwksUri = metadata.jwks_uri;
}

interface CallSeen {
    tool: string;
    outcome: 'ok' | 'tool_error' | 'step_up' | 'failed';
    text?: string;
    message?: string;
}
const calls: CallSeen[] = [];
const stepUps: { tool: string; scope: string | null; token_scope_after?: string }[] = [];

function text(result: ToolResult): string {
    return result.content.map(block => (block.type === 'text' ? block.text : `<${block.type}>`)).join('');
}

/** Call a tool; if the SDK has to re-authorize for it (step-up), finish that and call again. */
async function call(connection: Connection, tool: string, args: Record<string, unknown> = {}): Promise<string> {
    for (let attempt = 0; attempt < 3; attempt += 1) {
        const before = provider.authorizations.length;
        try {
            const result = await connection.callTool(tool, args);
            const seen = text(result);
            calls.push({ tool, outcome: result.isError ? 'tool_error' : 'ok', text: seen });
            check(!result.isError, `${tool} answered an error: ${seen}`);
            return seen;
        } catch (error) {
            if (unauthorized(error) && provider.authorizations.length > before) {
                // The 403 made the SDK start a new authorization (it threw once it "redirected").
                const scope = provider.authorizations.at(-1)!.scope;
                log(`${tool}: the SDK stepped up, asking for "${scope}"`);
                calls.push({ tool, outcome: 'step_up', message: String((error as Error).message) });
                await connection.finishAuth(provider.takeCallback());
                const token = await verifyCurrentToken();
                stepUps.push({ tool, scope, token_scope_after: token.claims.scope });
                continue;
            }
            calls.push({ tool, outcome: 'failed', message: String(error) });
            throw error;
        }
    }
    throw new Failure(`${tool}: still refused after two step-ups`);
}

async function main() {
    // 1. Connecting without a token: 401, discovery, registration, authorization (headless).
    let connection = newConnection();
    let firstConnect = 'connected without authorization';
    try {
        await connection.connect();
    } catch (error) {
        check(unauthorized(error), `connecting failed with ${error}, not UnauthorizedError`);
        firstConnect = 'UnauthorizedError (the SDK redirected for authorization)';
    }
    check(firstConnect.startsWith('UnauthorizedError'), 'the server let the client in without a token');
    check(provider.authorizations.length === 1, 'the SDK did not start one authorization');
    // 2. Back from the "browser": exchange the code, then connect again with the token.
    await connection.finishAuth(provider.takeCallback());
    await connection.close().catch(() => {});
    await readDiscovery();
    const first = await verifyCurrentToken();
    connection = newConnection();
    await connection.connect();
    const negotiated = connection.negotiated();
    const tools = (await connection.listTools()).sort();

    // 3. The calls.
    const results: Record<string, string> = {};
    results.my_notes_before = await call(connection, 'my_notes');
    results.add_note = await call(connection, 'add_note', { text: `a note from ${account}` });
    results.my_notes_after = await call(connection, 'my_notes');
    check(results.my_notes_after.split('\n').includes(`a note from ${account}`), `my_notes does not show the new note: ${results.my_notes_after}`);
    await connection.close();

    const tokenRequests = fetched.filter(f => f.method === 'POST' && f.form?.grant_type === 'authorization_code');
    const registrations = fetched.filter(f => f.method === 'POST' && /\/reg\b/.test(f.url));
    const summary = {
        ok: true,
        account,
        sdk,
        era: negotiated.era,
        protocol_version: negotiated.protocolVersion,
        first_connect: firstConnect,
        challenges: fetched.filter(f => f.challenge !== undefined).map(f => ({ status: f.status, method: f.method, url: f.url, www_authenticate: f.challenge })),
        discovery: {
            unauthenticated: fetched.find(f => f.url === mcpUrl.href && f.status === 401)?.url,
            protected_resource_metadata: fetched.filter(f => f.url.includes('oauth-protected-resource')).map(f => `${f.status} ${f.url}`),
            authorization_server_metadata: fetched.filter(f => /\/\.well-known\/(oauth-authorization-server|openid-configuration)/.test(f.url)).map(f => `${f.status} ${f.url}`),
            protected_resource: protectedResource,
            issuer,
            jwks_uri: jwksUri
        },
        registration: {
            requests: registrations.map(f => `${f.status} ${f.url}`),
            client_id: provider.registered?.client_id,
            token_endpoint_auth_method: (provider.registered as { token_endpoint_auth_method?: string } | undefined)?.token_endpoint_auth_method
        },
        authorizations: provider.authorizations,
        token_requests: tokenRequests.map(f => ({ status: f.status, url: f.url, ...f.form })),
        tokens,
        first_token_scope: first.claims.scope,
        tools,
        calls,
        step_ups: stepUps,
        results
    };
    process.stdout.write(`${JSON.stringify(summary)}\n`);
}

main().then(
    () => process.exit(0),
    error => {
        log(error instanceof Failure ? `FAIL: ${error.message}` : error);
        log(`requests: ${JSON.stringify(fetched)}`);
        process.exit(1);
    }
);
