// The TypeScript SDKs over Streamable HTTP with bearer tokens: `examples/team_notes.rs`.
//
//   node ts/team-notes.ts --sdk v1|v2 --era legacy|auto <endpoint-url>   # http://127.0.0.1:PORT/mcp
//
// `v1` is `@modelcontextprotocol/sdk` (legacy only); `v2` is `@modelcontextprotocol/client`,
// `legacy` its default connect and `auto` `versionNegotiation: { mode: 'auto' }` (2026-07-28).
// The token goes in `requestInit.headers.Authorization`; no `authProvider` is given.
//
// The server was started with TEAM_NOTES_TOKENS="alice=alice-token,bob=bob-token,
// carol=carol-token[notes:read]": alice may read and write, carol only read. Checks: alice lists
// `add_note` and `my_notes`, carol only `my_notes`; alice's `add_note` runs as alice and carol's
// `my_notes` does not show alice's note; carol's `add_note` (called although unlisted) is
// refused with 403 `insufficient_scope`, surfaced as the SDK surfaces it (v1: a
// `StreamableHTTPError` with code 403 whose message holds the JSON-RPC error body; v2: an
// `InsufficientScopeError` naming the scope, with no step-up attempted since there is no OAuth
// provider), and the connection still serves her afterwards; an unknown token cannot connect
// (401). Prints one `ok`/`FAIL` line per check and exits 1 on any mismatch.

import { Client as ClientV1 } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport as TransportV1, StreamableHTTPError } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import {
    Client as ClientV2,
    InsufficientScopeError,
    SdkErrorCode,
    SdkHttpError,
    StreamableHTTPClientTransport as TransportV2
} from '@modelcontextprotocol/client';
import { jsonEqual, joinText, LEGACY_VERSIONS, MODERN_VERSION, Report, runAndExit } from './common.ts';

const usage = 'usage: team-notes.ts --sdk v1|v2 --era legacy|auto <endpoint-url>';
const argv = process.argv.slice(2);
const option = (name: string): string | undefined => {
    const at = argv.indexOf(name);
    return at >= 0 ? argv.splice(at, 2)[1] : undefined;
};
const sdk = option('--sdk');
const era = option('--era');
if (!((sdk === 'v1' && era === 'legacy') || (sdk === 'v2' && (era === 'legacy' || era === 'auto'))) || argv.length !== 1) {
    console.error(usage);
    process.exit(2);
}
const url = new URL(argv[0]);
const report = new Report(`typescript-sdk-${sdk} (${era}) over Streamable HTTP with bearer tokens`);

/** The expected refusal of carol's `add_note`, in the JSON-RPC error body. */
const REFUSAL = { code: -32003, data: { error: 'insufficient_scope', scope: 'notes:write' } };

/** What a `tools/call` came to: its result, through the SDK's types, or what it threw. */
type Outcome = { isError: boolean; text: string } | { thrown: unknown };

/** A call's result as the checks see it. */
function outcome(result: { isError?: boolean; content: ReadonlyArray<{ type: string; text?: unknown }> }): Outcome {
    return { isError: result.isError === true, text: joinText(result.content) };
}

/** One signed-in connection, whichever SDK line drives it. */
interface Notes {
    /** The negotiated revision. */
    version(): string | undefined;
    tools(): Promise<string[]>;
    call(name: string, args: Record<string, unknown>): Promise<Outcome>;
    /** Every error the transport reported to the client's `onerror`. */
    errors: unknown[];
    close(): Promise<void>;
}

function headers(token: string): RequestInit {
    return { headers: { Authorization: `Bearer ${token}` } };
}

async function connectV1(token: string): Promise<Notes> {
    const client = new ClientV1({ name: 'mcp-rs-interop-team-notes-v1', version: '0.0.0' });
    const transport = new TransportV1(url, { requestInit: headers(token) });
    const errors: unknown[] = [];
    client.onerror = error => errors.push(error);
    await client.connect(transport);
    return {
        version: () => transport.protocolVersion,
        tools: async () => (await client.listTools()).tools.map(tool => tool.name).sort(),
        call: async (name, args) => {
            try {
                // The v1 signature also admits the 2024-10-07 `toolResult` shape.
                const raw = await client.callTool({ name, arguments: args });
                return 'content' in raw && Array.isArray(raw.content)
                    ? outcome(raw as Parameters<typeof outcome>[0])
                    : { isError: true, text: `result has no content array: ${JSON.stringify(raw)}` };
            } catch (thrown) {
                return { thrown };
            }
        },
        errors,
        close: () => client.close()
    };
}

async function connectV2(token: string): Promise<Notes> {
    const client = new ClientV2(
        { name: 'mcp-rs-interop-team-notes-v2', version: '0.0.0' },
        era === 'auto' ? { versionNegotiation: { mode: 'auto' } } : {}
    );
    const transport = new TransportV2(url, { requestInit: headers(token) });
    const errors: unknown[] = [];
    client.onerror = error => errors.push(error);
    await client.connect(transport);
    return {
        version: () => client.getNegotiatedProtocolVersion(),
        tools: async () => (await client.listTools()).tools.map(tool => tool.name).sort(),
        call: async (name, args) => {
            try {
                return outcome(await client.callTool({ name, arguments: args }));
            } catch (thrown) {
                return { thrown };
            }
        },
        errors,
        close: () => client.close()
    };
}

const connect = sdk === 'v1' ? connectV1 : connectV2;

function describe(value: unknown): string {
    if (value instanceof Error) {
        const { code, data } = value as { code?: unknown; data?: unknown };
        return `${value.constructor.name} (code ${JSON.stringify(code)}, data ${JSON.stringify(data)}): ${value.message}`;
    }
    return JSON.stringify(value);
}

function text(seen: Outcome): string {
    return 'thrown' in seen ? `threw ${describe(seen.thrown)}` : seen.text;
}

function succeeded(seen: Outcome): boolean {
    return !('thrown' in seen) && !seen.isError;
}

/** Whether `thrown` is what this SDK line makes of the 403; the detail otherwise. */
function refusal(thrown: unknown): string | undefined {
    if (sdk === 'v1') {
        // v1 without an authProvider: `StreamableHTTPError(403, "Error POSTing to endpoint: <body>")`;
        // the JSON-RPC error in the body is not parsed, only quoted.
        if (!(thrown instanceof StreamableHTTPError) || thrown.code !== 403) {
            return `not a StreamableHTTPError with code 403: ${describe(thrown)}`;
        }
        const prefix = 'Streamable HTTP error: Error POSTing to endpoint: ';
        if (!thrown.message.startsWith(prefix)) {
            return `message: ${thrown.message}`;
        }
        let body: { id?: unknown; error?: { code?: unknown; data?: unknown } };
        try {
            body = JSON.parse(thrown.message.slice(prefix.length)) as typeof body;
        } catch {
            return `the quoted body is not JSON: ${thrown.message}`;
        }
        const ok = typeof body.id === 'number' && jsonEqual({ code: body.error?.code, data: body.error?.data }, REFUSAL);
        return ok ? undefined : `body: ${JSON.stringify(body)}`;
    }
    // v2 with no OAuth provider: the transport's step-up (default `onInsufficientScope:
    // 'reauthorize'`) has nothing to reauthorize with and throws `InsufficientScopeError` with the
    // challenge's parameters; the body's JSON-RPC error is not surfaced.
    if (!(thrown instanceof InsufficientScopeError)) {
        return `not an InsufficientScopeError: ${describe(thrown)}`;
    }
    const seen = {
        message: thrown.message,
        requiredScope: thrown.requiredScope,
        resourceMetadataUrl: thrown.resourceMetadataUrl,
        errorDescription: thrown.errorDescription
    };
    const expected = {
        message: 'Insufficient scope: required "notes:write"',
        requiredScope: 'notes:write',
        resourceMetadataUrl: undefined,
        errorDescription: undefined
    };
    return jsonEqual(seen, expected) ? undefined : `got ${JSON.stringify(seen)}`;
}

async function main(): Promise<void> {
    const note = `alice's note (${sdk} ${era})`;
    const alice = await connect('alice-token');
    const version = alice.version();
    report.check(
        era === 'auto' ? version === MODERN_VERSION : LEGACY_VERSIONS.includes(version ?? ''),
        `negotiated ${version}`,
        () => `negotiated ${version}`
    );
    const aliceTools = await alice.tools();
    report.check(jsonEqual(aliceTools, ['add_note', 'my_notes']), 'alice lists add_note and my_notes', () => JSON.stringify(aliceTools));
    const added = await alice.call('add_note', { text: note });
    report.check(succeeded(added) && text(added).startsWith('alice has '), "alice's add_note ran as alice", () => text(added));
    await alice.close();

    const carol = await connect('carol-token');
    const carolTools = await carol.tools();
    report.check(jsonEqual(carolTools, ['my_notes']), 'carol (notes:read only) lists only my_notes', () => JSON.stringify(carolTools));
    report.check(!jsonEqual(carolTools, aliceTools), "carol's list differs from alice's", () => JSON.stringify(carolTools));
    const carols = await carol.call('my_notes', {});
    report.check(succeeded(carols) && !text(carols).includes(note), "carol's my_notes works and does not show alice's note", () => text(carols));

    const write = await carol.call('add_note', { text: 'carol was here' });
    if ('thrown' in write) {
        const mismatch = refusal(write.thrown);
        report.check(mismatch === undefined, `carol's unlisted add_note is refused: ${describe(write.thrown)}`, () => mismatch ?? '');
        report.check(
            carol.errors.includes(write.thrown),
            "the client's onerror saw the same error",
            () => carol.errors.map(describe).join('; ') || 'nothing'
        );
    } else {
        report.fail(`carol's add_note was not refused: ${text(write)}`);
    }
    const after = await carol.call('my_notes', {});
    report.check(
        succeeded(after) && !text(after).includes('carol was here'),
        'after the 403 the connection still serves carol, and her note was not written',
        () => text(after)
    );
    await carol.close();

    const again = await connect('alice-token');
    const mine = await again.call('my_notes', {});
    report.check(succeeded(mine) && text(mine).split('\n').includes(note), 'alice sees her note', () => text(mine));
    await again.close();

    let refused: unknown;
    try {
        const intruder = await connect('stolen-token');
        await intruder.close();
    } catch (error) {
        refused = error;
    }
    let expected: boolean;
    if (sdk === 'v1') {
        expected = refused instanceof StreamableHTTPError && refused.code === 401 && refused.message.includes('unknown token');
    } else if (era === 'legacy') {
        // The `initialize` POST's 401 without an auth provider: the generic POST failure.
        expected = refused instanceof SdkHttpError && refused.status === 401 && refused.code === SdkErrorCode.ClientHttpNotImplemented && refused.message.includes('unknown token');
    } else {
        // `server/discover` answered 401: the negotiation says so.
        expected =
            refused instanceof SdkHttpError &&
            refused.status === 401 &&
            refused.code === SdkErrorCode.ClientHttpAuthentication &&
            String(refused.data.text).includes('unknown token');
    }
    report.check(expected, `an unknown token cannot connect (401): ${describe(refused)}`, () => describe(refused));
}

await runAndExit(report, main);
