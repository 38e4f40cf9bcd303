// What every TypeScript interop client checks, whichever SDK line drives the server.
//
// A client program adapts its SDK's `Client` to `Session` and hands it to `runChecks`, which
// walks the fixture (see ../README.md for its format) and records every check. The programs
// share this so the two SDK lines (v1 `@modelcontextprotocol/sdk`, v2 `@modelcontextprotocol/client`)
// hold the server to the same expectations as the Python client (../python/client.py).

import { readFileSync } from 'node:fs';

/** One expected tool call: the arguments to send and what the result must show. */
export interface CallCase {
    arguments: Record<string, unknown>;
    /** The concatenated text of the result's text blocks must equal this. */
    text?: string;
    /** The concatenated text must contain this. */
    textContains?: string;
    /** `isError` must equal this (default `false`). */
    isError?: boolean;
    /** `structuredContent` must deep-equal this. */
    structuredContent?: unknown;
    /** Free text telling what the case is about (reported only). */
    why?: string;
}

/** One expected `resources/read` or `prompts/get`: what the contents or messages must show. */
export interface ContentsCase {
    /** `resources/read`: the URI to read. */
    uri?: string;
    /** `prompts/get`: the prompt and its arguments. */
    name?: string;
    arguments?: Record<string, string>;
    /** The text of the contents (or messages), joined, must contain this. */
    textContains?: string;
    /** `resources/read`: the first item's `mimeType` must equal this. */
    mimeType?: string;
    /** How many contents items (or messages) there must be. */
    count?: number;
    /** A JSON-RPC error is expected instead (resource not found: -32002 legacy, -32602
     * modern; prompts: -32602). */
    error?: boolean;
    why?: string;
}

/** One expected `completion/complete`. */
export interface CompletionCase {
    ref: { type: 'ref/prompt'; name: string } | { type: 'ref/resource'; uri: string };
    argument: { name: string; value: string };
    /** The suggested values must equal these. */
    values: string[];
    why?: string;
}

/** A per-example fixture: see ../README.md. */
export interface Fixture {
    example: string;
    tools: Record<string, CallCase[]>;
    resources?: string[];
    resourceTemplates?: string[];
    prompts?: string[];
    reads?: ContentsCase[];
    promptGets?: ContentsCase[];
    completions?: CompletionCase[];
}

/** The server's declared capabilities, as far as the checks care. */
export interface DeclaredCapabilities {
    tools?: object;
    resources?: object;
    prompts?: object;
    completions?: object;
}

/** What one `resources/read` or `prompts/get` produced, through the client's own types. */
export type ContentsOutcome =
    | { kind: 'result'; count: number; text: string; mimeTypes: (string | undefined)[] }
    | ProtocolErrorOutcome;

/** What one `completion/complete` produced. */
export type CompleteOutcome = { kind: 'result'; values: string[] } | ProtocolErrorOutcome;

/** A listed tool, as far as the checks care. */
export interface ListedTool {
    name: string;
    inputSchema: { type?: unknown; required?: unknown; properties?: unknown };
}

/** What one `tools/call` produced, through the client's own types. */
export type CallOutcome =
    | { kind: 'result'; isError: boolean; text: string; structuredContent: unknown; contentTypes: string[] }
    | ProtocolErrorOutcome;

/** A JSON-RPC error in answer to a request. */
export type ProtocolErrorOutcome = { kind: 'protocolError'; code: number | undefined; message: string; data?: unknown };

/** A page of a paginated list. */
export interface Page<T> {
    items: T[];
    nextCursor?: string;
}

/** The SDK-specific half: one connected client. */
export interface Session {
    /** Which era the connection negotiated, and at which revision. */
    era(): { era: 'legacy' | 'modern'; protocolVersion: string | undefined };
    serverName(): string | undefined;
    capabilities(): DeclaredCapabilities | undefined;
    listTools(cursor: string | undefined): Promise<Page<ListedTool>>;
    listResources(cursor: string | undefined): Promise<Page<{ uri: string; name: string }>>;
    listResourceTemplates(cursor: string | undefined): Promise<Page<{ uriTemplate: string; name: string }>>;
    listPrompts(cursor: string | undefined): Promise<Page<{ name: string }>>;
    callTool(name: string, args: Record<string, unknown>): Promise<CallOutcome>;
    readResource(uri: string): Promise<ContentsOutcome>;
    getPrompt(name: string, args: Record<string, string>): Promise<ContentsOutcome>;
    complete(ref: CompletionCase['ref'], argument: CompletionCase['argument']): Promise<CompleteOutcome>;
}

/** Legacy revisions a server may negotiate through `initialize`. */
export const LEGACY_VERSIONS = ['2024-11-05', '2025-03-26', '2025-06-18', '2025-11-25'];
/** The modern revision the `auto` runs must end up on. */
export const MODERN_VERSION = '2026-07-28';

/** Collects passed and failed checks; prints as it goes. */
export class Report {
    passed = 0;
    failures: string[] = [];

    readonly label: string;

    constructor(label: string) {
        this.label = label;
    }

    ok(what: string): void {
        this.passed += 1;
        console.log(`ok   ${what}`);
    }

    fail(what: string): void {
        this.failures.push(what);
        console.log(`FAIL ${what}`);
    }

    check(condition: boolean, what: string, detail: () => string): void {
        if (condition) {
            this.ok(what);
        } else {
            this.fail(`${what}: ${detail()}`);
        }
    }

    /** Prints the summary line and gives the process exit code. */
    finish(): number {
        const failed = this.failures.length;
        console.log(`${this.label}: ${this.passed} checks held, ${failed} mismatched`);
        if (failed > 0) {
            console.error(`${this.label}: mismatches:\n  - ${this.failures.join('\n  - ')}`);
            return 1;
        }
        return 0;
    }
}

/** Command-line arguments shared by the TypeScript client programs. */
export interface CliArgs {
    era: string;
    fixture: Fixture;
    fixturePath: string;
    command: string;
    args: string[];
}

/** Parses `--era <era> <fixture.json> <server-binary> [server args...]`. */
export function parseArgs(argv: string[], eras: string[]): CliArgs {
    const rest = argv.slice(2);
    let era = eras[0];
    if (rest[0] === '--era') {
        era = rest[1] ?? '';
        rest.splice(0, 2);
    }
    if (!eras.includes(era) || rest.length < 2) {
        console.error(`usage: <program> [--era ${eras.join('|')}] <fixture.json> <server-binary> [server args...]`);
        process.exit(2);
    }
    const [fixturePath, command, ...args] = rest;
    const fixture = JSON.parse(readFileSync(fixturePath, 'utf8')) as Fixture;
    return { era, fixture, fixturePath, command, args };
}

const MAX_PAGES = 100;

/** Follows `nextCursor` until the last page; fails on a repeated cursor or too many pages. */
async function collect<T>(
    report: Report,
    method: string,
    fetch: (cursor: string | undefined) => Promise<Page<T>>
): Promise<T[] | undefined> {
    const items: T[] = [];
    const seen = new Set<string>();
    let cursor: string | undefined;
    for (let page = 1; page <= MAX_PAGES; page += 1) {
        let result: Page<T>;
        try {
            result = await fetch(cursor);
        } catch (error) {
            report.fail(`${method} (page ${page}) threw: ${describe(error)}`);
            return undefined;
        }
        items.push(...result.items);
        if (result.nextCursor === undefined) {
            report.ok(`${method}: ${items.length} item(s) in ${page} page(s)`);
            return items;
        }
        if (seen.has(result.nextCursor)) {
            report.fail(`${method}: nextCursor ${JSON.stringify(result.nextCursor)} repeats`);
            return undefined;
        }
        seen.add(result.nextCursor);
        cursor = result.nextCursor;
    }
    report.fail(`${method}: still paginating after ${MAX_PAGES} pages`);
    return undefined;
}

function describe(error: unknown): string {
    if (error instanceof Error) {
        const code = (error as { code?: unknown }).code;
        return code === undefined ? `${error.name}: ${error.message}` : `${error.name} (code ${String(code)}): ${error.message}`;
    }
    return String(error);
}

/** Deep equality for JSON values (object key order does not matter). */
export function jsonEqual(a: unknown, b: unknown): boolean {
    if (a === b) return true;
    if (typeof a !== 'object' || typeof b !== 'object' || a === null || b === null) return false;
    if (Array.isArray(a) !== Array.isArray(b)) return false;
    if (Array.isArray(a) && Array.isArray(b)) {
        return a.length === b.length && a.every((item, i) => jsonEqual(item, b[i]));
    }
    const ka = Object.keys(a as object).sort();
    const kb = Object.keys(b as object).sort();
    return (
        jsonEqual(ka, kb) &&
        ka.every(k => jsonEqual((a as Record<string, unknown>)[k], (b as Record<string, unknown>)[k]))
    );
}

function checkNames(report: Report, what: string, listed: string[], expected: string[] | undefined): void {
    if (expected === undefined) return;
    const missing = expected.filter(n => !listed.includes(n));
    const extra = listed.filter(n => !expected.includes(n));
    report.check(missing.length === 0 && extra.length === 0, `${what} match the fixture`, () =>
        `listed ${JSON.stringify(listed)}, fixture ${JSON.stringify(expected)}`
    );
}

/** Checks one call outcome against its case. */
function checkCall(report: Report, name: string, c: CallCase, outcome: CallOutcome): void {
    const label = `tools/call ${name} ${JSON.stringify(c.arguments)}${c.why ? ` (${c.why})` : ''}`;
    if (outcome.kind === 'protocolError') {
        report.fail(`${label}: JSON-RPC error ${String(outcome.code)} ${outcome.message}; expected a result`);
        return;
    }
    const problems: string[] = [];
    const wantError = c.isError ?? false;
    if (outcome.isError !== wantError) problems.push(`isError is ${outcome.isError}, expected ${wantError}`);
    if (outcome.contentTypes.length === 0) problems.push('content is empty');
    if (c.text !== undefined && outcome.text !== c.text) {
        problems.push(`text is ${JSON.stringify(outcome.text)}, expected ${JSON.stringify(c.text)}`);
    }
    if (c.textContains !== undefined && !outcome.text.includes(c.textContains)) {
        problems.push(`text ${JSON.stringify(outcome.text)} lacks ${JSON.stringify(c.textContains)}`);
    }
    if (c.structuredContent !== undefined && !jsonEqual(outcome.structuredContent, c.structuredContent)) {
        problems.push(
            `structuredContent is ${JSON.stringify(outcome.structuredContent)}, expected ${JSON.stringify(c.structuredContent)}`
        );
    }
    report.check(problems.length === 0, label, () => problems.join('; '));
}

/** Runs every check of `fixture` over a connected session. */
export async function runChecks(report: Report, session: Session, fixture: Fixture, expectEra: 'legacy' | 'modern'): Promise<void> {
    const { era, protocolVersion } = session.era();
    report.check(era === expectEra, `negotiated the ${expectEra} era`, () => `got ${era} at ${String(protocolVersion)}`);
    const wanted = expectEra === 'legacy' ? LEGACY_VERSIONS : [MODERN_VERSION];
    report.check(protocolVersion !== undefined && wanted.includes(protocolVersion), `protocol version ${String(protocolVersion)}`, () =>
        `expected one of ${wanted.join(', ')}`
    );
    console.log(`     server: ${String(session.serverName())}`);

    const caps = session.capabilities() ?? {};
    report.check(caps.tools !== undefined, 'server declares the tools capability', () => JSON.stringify(caps));

    const tools = (await collect(report, 'tools/list', c => session.listTools(c))) ?? [];
    const names = tools.map(t => t.name);
    report.check(new Set(names).size === names.length, 'tool names are unique', () => JSON.stringify(names));
    checkNames(report, 'listed tools', names, Object.keys(fixture.tools));
    for (const tool of tools) {
        report.check(tool.inputSchema.type === 'object', `tool ${tool.name}: inputSchema is an object schema`, () =>
            JSON.stringify(tool.inputSchema)
        );
    }

    if (caps.resources !== undefined) {
        const resources = await collect(report, 'resources/list', c => session.listResources(c));
        if (resources) checkNames(report, 'listed resources', resources.map(r => r.uri), fixture.resources);
        const templates = await collect(report, 'resources/templates/list', c => session.listResourceTemplates(c));
        if (templates) {
            checkNames(report, 'listed resource templates', templates.map(t => t.uriTemplate), fixture.resourceTemplates);
        }
    } else {
        report.check(fixture.resources === undefined && fixture.resourceTemplates === undefined, 'no resources capability', () =>
            'the fixture expects resources but the server does not declare the capability'
        );
    }
    if (caps.prompts !== undefined) {
        const prompts = await collect(report, 'prompts/list', c => session.listPrompts(c));
        if (prompts) checkNames(report, 'listed prompts', prompts.map(p => p.name), fixture.prompts);
    } else {
        report.check(fixture.prompts === undefined, 'no prompts capability', () =>
            'the fixture expects prompts but the server does not declare the capability'
        );
    }

    // Reads, prompts and completions, through the client's own result types.
    // Legacy servers answer a missing resource with -32002; the v2 SDK reports that (with
    // `data.uri`) as its `ResourceNotFoundError`, whose code is -32602. Modern: -32602 only.
    const notFound = session.era().era === 'modern' ? [-32602] : [-32002, -32602];
    for (const c of fixture.reads ?? []) {
        const uri = c.uri ?? '';
        checkContents(report, `resources/read ${uri}`, c, await session.readResource(uri), notFound);
    }
    for (const c of fixture.promptGets ?? []) {
        const name = c.name ?? '';
        const label = `prompts/get ${name} ${JSON.stringify(c.arguments ?? {})}`;
        checkContents(report, label, c, await session.getPrompt(name, c.arguments ?? {}), [-32602]);
    }
    if ((fixture.completions ?? []).length > 0) {
        report.check(caps.completions !== undefined, 'server declares the completions capability', () => JSON.stringify(caps));
    }
    for (const c of fixture.completions ?? []) {
        const outcome = await session.complete(c.ref, c.argument);
        const why = c.why === undefined ? '' : ` (${c.why})`;
        report.check(
            outcome.kind === 'result' && JSON.stringify(outcome.values) === JSON.stringify(c.values),
            `completion/complete ${JSON.stringify(c.ref)} ${JSON.stringify(c.argument)}${why}`,
            () => `${JSON.stringify(outcome)}, expected values ${JSON.stringify(c.values)}`
        );
    }

    // Every fixture case, through the client's own result types.
    for (const [name, cases] of Object.entries(fixture.tools)) {
        report.check(cases.length > 0, `fixture has a call for ${name}`, () => 'add at least one case');
        for (const c of cases) {
            checkCall(report, name, c, await session.callTool(name, c.arguments));
        }
    }

    // Argument validation failures are tool results with isError, not protocol errors.
    for (const tool of tools) {
        const required = Array.isArray(tool.inputSchema.required) ? (tool.inputSchema.required as unknown[]) : [];
        if (required.length === 0) continue;
        const outcome = await session.callTool(tool.name, {});
        report.check(
            outcome.kind === 'result' && outcome.isError,
            `tools/call ${tool.name} {} (missing required ${JSON.stringify(required)}) gives isError`,
            () => JSON.stringify(outcome)
        );
    }

    // An unknown tool is a protocol error (-32602), not a result.
    const unknown = await session.callTool('no_such_tool_for_interop', {});
    report.check(
        isInvalidParams(unknown),
        'tools/call of an unknown tool gives JSON-RPC error -32602',
        () => JSON.stringify(unknown)
    );
}

function checkContents(report: Report, label: string, c: ContentsCase, outcome: ContentsOutcome, errorCodes: number[]): void {
    const why = c.why === undefined ? '' : ` (${c.why})`;
    if (c.error === true) {
        report.check(
            outcome.kind === 'protocolError' && outcome.code !== undefined && errorCodes.includes(outcome.code),
            `${label}${why} gives JSON-RPC error ${errorCodes.join(' or ')}`,
            () => JSON.stringify(outcome)
        );
        return;
    }
    if (outcome.kind !== 'result') {
        report.fail(`${label}${why}: ${JSON.stringify(outcome)}; expected a result`);
        return;
    }
    const problems: string[] = [];
    if (outcome.count === 0) problems.push('nothing in it');
    if (c.count !== undefined && outcome.count !== c.count) problems.push(`${outcome.count} items, expected ${c.count}`);
    if (c.textContains !== undefined && !outcome.text.includes(c.textContains)) {
        problems.push(`text ${JSON.stringify(outcome.text)} lacks ${JSON.stringify(c.textContains)}`);
    }
    if (c.mimeType !== undefined && outcome.mimeTypes[0] !== c.mimeType) {
        problems.push(`mimeType is ${String(outcome.mimeTypes[0])}, expected ${c.mimeType}`);
    }
    report.check(problems.length === 0, `${label}${why}`, () => problems.join('; '));
}

/** The text of resource contents or prompt messages, joined (other kinds are skipped). */
export function contentsOutcome(items: ReadonlyArray<object>): ContentsOutcome {
    const fields = items.map(item => item as { text?: unknown; mimeType?: unknown });
    return {
        kind: 'result',
        count: fields.length,
        text: fields.map(item => (typeof item.text === 'string' ? item.text : '')).join(''),
        mimeTypes: fields.map(item => (typeof item.mimeType === 'string' ? item.mimeType : undefined))
    };
}

function isInvalidParams(outcome: CallOutcome): boolean {
    return outcome.kind === 'protocolError' && outcome.code === -32602;
}

/** Joins the text blocks of a result's content. */
export function joinText(content: ReadonlyArray<{ type: string; text?: unknown }>): string {
    return content
        .filter(b => b.type === 'text' && typeof b.text === 'string')
        .map(b => b.text as string)
        .join('');
}

/** Turns a thrown call error into an outcome (protocol errors carry a numeric code). */
export function errorOutcome(error: unknown): ProtocolErrorOutcome {
    const { code, data } = (error ?? {}) as { code?: unknown; data?: unknown };
    return {
        kind: 'protocolError',
        code: typeof code === 'number' ? code : undefined,
        message: describe(error),
        ...(data !== undefined && { data })
    };
}

/** `run`'s value through `map`, or the protocol error it failed with. */
export async function settle<T, O>(run: () => Promise<T>, map: (value: T) => O): Promise<O | ProtocolErrorOutcome> {
    try {
        return map(await run());
    } catch (error) {
        return errorOutcome(error);
    }
}

/** A prompt's messages as contents, or the protocol error. */
export function promptOutcome(get: () => Promise<{ messages: ReadonlyArray<{ content: object }> }>): Promise<ContentsOutcome> {
    return settle(get, result => contentsOutcome(result.messages.map(message => message.content)));
}

/** Run `checks`, count an exception as a failed check, run `cleanup`, and exit with the report's status. */
export async function runAndExit(report: Report, checks: () => Promise<void>, cleanup: () => Promise<unknown> = async () => undefined): Promise<never> {
    let code = 1;
    try {
        await checks();
    } catch (error) {
        report.fail(`unexpected error: ${error instanceof Error ? (error.stack ?? error.message) : String(error)}`);
    } finally {
        await cleanup().catch(() => undefined);
        code = report.finish();
    }
    process.exit(code);
}

/** A `tools/call` result as the checks compare it. */
export function callOutcome(result: { isError?: boolean; content: ReadonlyArray<{ type: string; text?: unknown }>; structuredContent?: unknown }): CallOutcome {
    return {
        kind: 'result',
        isError: result.isError === true,
        text: joinText(result.content),
        structuredContent: result.structuredContent,
        contentTypes: result.content.map(b => b.type)
    };
}
