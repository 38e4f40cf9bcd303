// What every TypeScript client checks when the server asks it something (elicitation, sampling,
// roots), whichever SDK line answers: `asking-v1.ts` (`@modelcontextprotocol/sdk`, legacy only)
// and `asking-v2.ts` (`@modelcontextprotocol/client`, legacy or 2026-07-28). The same
// expectations as ../python/asking.py.
//
// A program registers its SDK's request handlers, which delegate to `Answers` (scripted answers,
// recording what was asked), adapts its `Client` to `AskingSession`, and hands a factory of those
// to `runAskingChecks`.

import { LEGACY_VERSIONS, MODERN_VERSION, Report, type CallOutcome, type ContentsOutcome } from './common.ts';

/** How the user answers one elicitation form. */
export type ElicitAnswer = {
    action: 'accept' | 'decline' | 'cancel';
    content?: Record<string, string | number | boolean>;
};

/** One progress notification, as the SDK delivered it. */
export interface ProgressSeen {
    progress: number;
    total: number | undefined;
    message: string | undefined;
}

/** What a call may take besides its arguments. */
export interface CallOptions {
    onprogress?: (progress: ProgressSeen) => void;
    signal?: AbortSignal;
}

/** The SDK-specific half: one connected client. */
export interface AskingSession {
    era(): { era: 'legacy' | 'modern'; protocolVersion: string | undefined };
    /** Whether the SDK may lose the progress notification that arrives just before the call's
     * response. Both TypeScript SDKs run notification handlers a microtask later
     * (`Promise.resolve().then(handler)` in `Protocol._onnotification`) but responses at once,
     * and `_onresponse` deletes the call's progress handler: a notification read in the same
     * chunk as the response is then dropped. The server writes it first (see the README). */
    losesLastProgress: boolean;
    /** Whether the SDK reports each `input_required` round to `onprogress` itself (v2's
     * multi-round-trip driver: `{progress: round, message: "Fulfilling input required by
     * 'tools/call' (round N)"}`). */
    reportsInputRounds: boolean;
    /** The capabilities this client declares (to check an undeclared `elicitation`). */
    declared(): Record<string, unknown>;
    callTool(name: string, args: Record<string, unknown>, options?: CallOptions): Promise<CallOutcome>;
    getPrompt(name: string, args: Record<string, string>): Promise<ContentsOutcome>;
    close(): Promise<void>;
}

/** Connects a client to `binary`; `answers` undefined means no handler and no capability. */
export type Connect = (binary: string, answers: Answers | undefined) => Promise<AskingSession>;

export const ROOTS = [
    { uri: 'file:///srv/interop/alpha', name: 'alpha' },
    { uri: 'file:///srv/interop/beta', name: 'beta' }
];
export const MODEL = 'interop-model';
const MISSING_CAPABILITY = -32021;

/** The client side: scripted answers to the server's questions, and what was asked. */
export class Answers {
    /** Elicitation message -> the answer. */
    elicit = new Map<string, ElicitAnswer>();
    /** Every elicitation asked: its message, form and the id the SDK handed the handler (a
     * JSON-RPC id for a legacy server-to-client request, the `inputRequests` key for 2026-07-28). */
    asked: { message: string; requestedSchema: unknown; id: string }[] = [];
    sampled: { systemPrompt: string | undefined; maxTokens: number; messages: { role: string; text: string | undefined }[] }[] = [];
    rootsListed = 0;

    /** The answer to an elicitation, or `undefined` for a question not scripted. */
    onElicit(id: string, message: string, requestedSchema: unknown): ElicitAnswer | undefined {
        this.asked.push({ message, requestedSchema, id });
        return this.elicit.get(message);
    }

    onSample(systemPrompt: string | undefined, maxTokens: number, messages: { role: string; text: string | undefined }[]) {
        this.sampled.push({ systemPrompt, maxTokens, messages });
        const heard = messages.map(m => m.text ?? '').join('');
        return {
            model: MODEL,
            role: 'assistant' as const,
            content: { type: 'text' as const, text: `${heard.length} characters heard` },
            stopReason: 'endTurn'
        };
    }

    onRoots() {
        this.rootsListed += 1;
        return { roots: ROOTS.map(root => ({ ...root })) };
    }
}

function show(outcome: CallOutcome): string {
    return outcome.kind === 'result' ? `${JSON.stringify(outcome.text)} (isError ${outcome.isError})` : JSON.stringify(outcome);
}

async function expectText(
    report: Report,
    session: AskingSession,
    tool: string,
    args: Record<string, unknown>,
    text: string,
    isError = false
): Promise<void> {
    const outcome = await session.callTool(tool, args);
    report.check(
        outcome.kind === 'result' && outcome.text === text && outcome.isError === isError,
        `tools/call ${tool} ${JSON.stringify(args)} -> ${JSON.stringify(text)}${isError ? ' (isError)' : ''}`,
        () => `got ${show(outcome)}`
    );
}

function equal(report: Report, what: string, got: unknown, expected: unknown): void {
    const a = JSON.stringify(got);
    const b = JSON.stringify(expected);
    report.check(a === b, what, () => `got ${a}, expected ${b}`);
}

function checkEra(report: Report, session: AskingSession, expected: 'legacy' | 'modern', server: string): void {
    const { era, protocolVersion } = session.era();
    const wanted = expected === 'legacy' ? LEGACY_VERSIONS : [MODERN_VERSION];
    report.check(
        era === expected && protocolVersion !== undefined && wanted.includes(protocolVersion),
        `${server}: negotiated ${String(protocolVersion)} (${expected} era)`,
        () => `got ${era}, expected one of ${wanted.join(', ')}`
    );
}

/** The progress expected of one call, in runs: each run ends where the server answers (a
 * response, or an `input_required` result) unless `sdk` says the client itself reported it. */
type ProgressRuns = { items: ProgressSeen[]; sdk?: boolean }[];

/** `got` must equal the runs joined; when the SDK `losesLastProgress`, each server run may lose a
 * tail (what arrived in the same read as the response: see `AskingSession`), which is reported,
 * but nothing may be reordered, repeated or made up. */
function checkProgress(report: Report, what: string, got: ProgressSeen[], runs: ProgressRuns, lossy: boolean): void {
    const plain = (p: ProgressSeen) => JSON.stringify({ progress: p.progress, total: p.total, message: p.message });
    const seen = got.map(plain);
    const wanted = runs.flatMap(run => run.items.map(plain));
    const detail = () => `got [${seen.join(', ')}], expected [${wanted.join(', ')}]`;
    if (!lossy) {
        report.check(JSON.stringify(seen) === JSON.stringify(wanted), what, detail);
        return;
    }
    const lost: string[] = [];
    let i = 0;
    let matched = true;
    for (const run of runs) {
        const items = run.items.map(plain);
        let k = 0;
        while (k < items.length && seen[i] === items[k]) {
            i += 1;
            k += 1;
        }
        if (k < items.length && run.sdk === true) matched = false;
        lost.push(...items.slice(k));
    }
    matched &&= i === seen.length;
    const note = lost.length === 0 ? '' : ` (the SDK lost ${lost.length} read with a response: ${lost.join(', ')})`;
    report.check(matched, `${what}${note}`, detail);
}

/** `{name: type}` of a form's properties, and its `required`. */
function formShape(schema: unknown): { types: Record<string, unknown>; required: unknown } {
    const s = (schema ?? {}) as { properties?: Record<string, { type?: unknown }>; required?: unknown };
    const types = Object.fromEntries(Object.entries(s.properties ?? {}).map(([k, v]) => [k, v.type]));
    return { types, required: s.required };
}

async function askingServer(report: Report, connect: Connect, era: 'legacy' | 'modern', binary: string): Promise<void> {
    const answers = new Answers();
    const session = await connect(binary, answers);
    try {
        checkEra(report, session, era, 'asking-server');
        answers.elicit = new Map<string, ElicitAnswer>([
            ['Delete alpha?', { action: 'accept', content: { confirm: true, reason: 'stale' } }],
            ['Delete beta?', { action: 'accept', content: { confirm: false } }],
            ['Delete gamma?', { action: 'decline' }],
            ['Delete delta?', { action: 'cancel' }],
            ['First?', { action: 'accept', content: { confirm: true } }],
            ['Second?', { action: 'decline' }],
            ['Use 2 roots?', { action: 'accept', content: { confirm: false, reason: 'just looking' } }],
            ['Focus on security?', { action: 'accept', content: { confirm: true } }]
        ]);
        await expectText(report, session, 'confirm_delete', { name: 'alpha' }, 'deleted alpha (stale)');
        await expectText(report, session, 'confirm_delete', { name: 'beta' }, 'kept beta: not confirmed');
        await expectText(report, session, 'confirm_delete', { name: 'gamma' }, 'kept gamma: declined');
        await expectText(report, session, 'confirm_delete', { name: 'delta' }, 'kept delta: cancelled');
        const form = answers.asked.find(a => a.message === 'Delete alpha?');
        equal(report, 'elicitation/create form: {confirm: boolean (required), reason: string}', formShape(form?.requestedSchema), {
            types: { confirm: 'boolean', reason: 'string' },
            required: ['confirm']
        });

        await expectText(report, session, 'two_questions', {}, 'true Declined');
        const ids = ['First?', 'Second?'].map(m => answers.asked.find(a => a.message === m)?.id ?? '?').sort();
        if (era === 'modern') {
            equal(report, 'two_questions: both asked in one InputRequiredResult (keys q0, q1)', ids, ['q0', 'q1']);
        } else {
            report.check(
                new Set(ids).size === 2 && !ids.some(id => ['q0', 'q1', '?'].includes(id)),
                `two_questions: asked as two server-to-client requests (ids ${ids.join(', ')})`,
                () => JSON.stringify(ids)
            );
        }
        await expectText(report, session, 'sequential', {}, '2 roots, Accepted(Confirm { confirm: false, reason: Some("just looking") })');

        const question = 'What is the answer?';
        await expectText(report, session, 'ask_model', { question }, `${MODEL} said: ${question.length} characters heard`);
        equal(report, 'sampling/createMessage carried the system prompt, maxTokens 50 and the question', answers.sampled.at(-1), {
            systemPrompt: 'Answer briefly.',
            maxTokens: 50,
            messages: [{ role: 'user', text: question }]
        });

        await expectText(report, session, 'list_roots', {}, ROOTS.map(r => r.uri).join(','));
        report.check(answers.rootsListed >= 2, 'roots/list reached the handler', () => String(answers.rootsListed));

        await expectText(
            report,
            session,
            'bad_form',
            {},
            'cannot ask: not a valid elicitation form: field `inner` is not a string, number, integer, boolean or string enum',
            true
        );

        const prompt = await session.getPrompt('review', { code: 'fn main() {}' });
        report.check(
            prompt.kind === 'result' && prompt.count === 1 && prompt.text === 'Review this code for security:\nfn main() {}',
            'prompts/get review asks, then uses the answer',
            () => JSON.stringify(prompt)
        );
    } finally {
        await session.close();
    }
}

async function longTask(report: Report, connect: Connect, era: 'legacy' | 'modern', binary: string): Promise<void> {
    const answers = new Answers();
    const session = await connect(binary, answers);
    try {
        checkEra(report, session, era, 'long_task');
        const question = '2 parts copied. Drop the old tables? This cannot be undone.';
        const copied: ProgressSeen[] = [
            { progress: 1, total: 3, message: 'copied part 1 of 2' },
            { progress: 2, total: 3, message: 'copied part 2 of 2' }
        ];
        // 2026-07-28 re-runs the tool from the top once the answer comes: the copy steps (and
        // their progress) happen once per round; the legacy call waits in place.
        const driver: ProgressRuns = session.reportsInputRounds
            ? [{ items: [{ progress: 1, total: undefined, message: "Fulfilling input required by 'tools/call' (round 1)" }], sdk: true }]
            : [];
        const cases: [ElicitAnswer, string, boolean][] = [
            [{ action: 'accept', content: { drop_old_tables: true } }, 'migrated: copied 2 parts and dropped the old tables', true],
            [{ action: 'accept', content: { drop_old_tables: false } }, 'copied 2 parts; the old tables were kept (not confirmed)', false],
            [{ action: 'decline' }, 'copied 2 parts; the old tables were kept (not confirmed)', false],
            [{ action: 'cancel' }, 'copied 2 parts; the old tables were kept (question dismissed)', false]
        ];
        for (const [answer, text, dropped] of cases) {
            answers.elicit = new Map([[question, answer]]);
            const progress: ProgressSeen[] = [];
            const outcome = await session.callTool('migrate', { steps: 2, step_ms: 20 }, { onprogress: p => progress.push(p) });
            const label = `migrate answered ${JSON.stringify(answer)}`;
            report.check(outcome.kind === 'result' && outcome.text === text && !outcome.isError, `${label}: text`, () =>
                `got ${show(outcome)}, expected ${JSON.stringify(text)}`
            );
            const final = [...copied, ...(dropped ? [{ progress: 3, total: 3, message: 'dropped the old tables' }] : [])];
            const runs: ProgressRuns = era === 'legacy' ? [{ items: final }] : [{ items: copied }, ...driver, { items: final }];
            checkProgress(report, `${label}: progress`, progress, runs, session.losesLastProgress);
        }
        equal(report, 'migrate asks with the form {drop_old_tables: boolean}', formShape(answers.asked.at(-1)?.requestedSchema), {
            types: { drop_old_tables: 'boolean' },
            required: ['drop_old_tables']
        });

        // Cancellation through the SDK: abort the call's signal once progress has arrived; the
        // SDK sends `notifications/cancelled` and the call rejects.
        answers.asked = [];
        const controller = new AbortController();
        const progress: ProgressSeen[] = [];
        const started = Date.now();
        const reason = 'interop: cancelled after two progress notifications';
        const outcome = await session.callTool(
            'migrate',
            { steps: 200, step_ms: 50 },
            {
                signal: controller.signal,
                onprogress: p => {
                    progress.push(p);
                    if (progress.length === 2) controller.abort(reason);
                }
            }
        );
        const elapsed = Date.now() - started;
        equal(report, 'cancelled migrate: progress arrived before the cancel', progress.slice(0, 2), [
            { progress: 1, total: 201, message: 'copied part 1 of 200' },
            { progress: 2, total: 201, message: 'copied part 2 of 200' }
        ]);
        report.check(
            outcome.kind === 'protocolError' && outcome.message.includes(reason),
            'cancelled migrate: the call was rejected with the abort reason',
            () => JSON.stringify(outcome)
        );
        console.log(`     cancelled call ended with: ${JSON.stringify(outcome)}`);
        report.check(elapsed < 8000, 'cancelled migrate: stopped long before its 10 s', () => `${elapsed} ms`);
        equal(report, 'cancelled migrate: no question asked', answers.asked, []);

        // The server keeps serving: a second call, answered, completes.
        answers.elicit = new Map([
            ['1 parts copied. Drop the old tables? This cannot be undone.', { action: 'accept', content: { drop_old_tables: true } }]
        ]);
        const second = await session.callTool('migrate', { steps: 1, step_ms: 1 });
        report.check(
            second.kind === 'result' && second.text === 'migrated: copied 1 parts and dropped the old tables' && !second.isError,
            'after the cancel, a second migrate completes',
            () => show(second)
        );
    } finally {
        await session.close();
    }
}

async function withoutElicitation(report: Report, connect: Connect, era: 'legacy' | 'modern', longTaskBinary: string, askingBinary: string) {
    const cases: [string, string, Record<string, unknown>, string][] = [
        [
            longTaskBinary,
            'migrate',
            { steps: 1, step_ms: 1 },
            "copied 1 parts, but dropping the old tables needs the user's confirmation and the client cannot ask " +
                '(the client did not declare the `elicitation` capability)'
        ],
        [
            askingBinary,
            'confirm_delete',
            { name: 'alpha' },
            'cannot ask: cannot ask the client (elicitation): the client did not declare the `elicitation` capability'
        ]
    ];
    for (const [binary, tool, args, text] of cases) {
        const session = await connect(binary, undefined);
        try {
            checkEra(report, session, era, `${tool} without elicitation`);
            report.check(session.declared().elicitation === undefined, 'no elicitation handler: no elicitation capability declared', () =>
                JSON.stringify(session.declared())
            );
            const outcome = await session.callTool(tool, args);
            const label = `${tool} ${JSON.stringify(args)} without the elicitation capability`;
            if (era === 'modern') {
                const data = outcome.kind === 'protocolError' ? outcome.data : undefined;
                report.check(
                    outcome.kind === 'protocolError' &&
                        outcome.code === MISSING_CAPABILITY &&
                        JSON.stringify(data) === JSON.stringify({ requiredCapabilities: { elicitation: {} } }),
                    `${label}: JSON-RPC error -32021 requiring elicitation`,
                    () => JSON.stringify(outcome)
                );
                console.log(`     ${tool}: ${JSON.stringify(outcome)}`);
            } else {
                report.check(outcome.kind === 'result' && outcome.isError && outcome.text === text, `${label}: isError ${JSON.stringify(text)}`, () =>
                    show(outcome)
                );
            }
        } finally {
            await session.close();
        }
    }
}

/** Runs every asking check; each part on its own connection(s). */
export async function runAskingChecks(
    report: Report,
    connect: Connect,
    era: 'legacy' | 'modern',
    longTaskBinary: string,
    askingBinary: string
): Promise<void> {
    const parts: [string, () => Promise<void>][] = [
        ['asking-server', () => askingServer(report, connect, era, askingBinary)],
        ['long_task', () => longTask(report, connect, era, longTaskBinary)],
        ['without elicitation', () => withoutElicitation(report, connect, era, longTaskBinary, askingBinary)]
    ];
    for (const [name, part] of parts) {
        try {
            await part();
        } catch (error) {
            report.fail(`${name}: unexpected error: ${error instanceof Error ? (error.stack ?? error.message) : String(error)}`);
        }
    }
}

