// A small reference model of the review store, through the bundled
// agent's real change source (IsolatedWorkspaceSource) and an in-memory stand-in
// for its `_accord/...` methods. Random turns of agent edits, per-hunk
// accept/reject, accept-all / reject-all in a turn, undo-turn, the person's own
// edits (which conflict when they touch the same line) and taking them back,
// and agent restarts. After every step the files on disk, each turn's hunks and
// their shown states, the card label and the agent's copy must match the model.
//
// Files are slot lines separated by fixed lines, so every agent edit of a slot
// is exactly one hunk and the model needs no diff of its own.
import assert from 'node:assert/strict';
import fc from 'fast-check';
import { ReviewStore, type RealTree } from '../../../extension/review/reviewStore';
import { pathsToDiscard } from '../../../extension/review/reviewStates';
import { hunkState, isPending, type Content, type FileReview } from '../../../extension/review/fileReview';
import { IsolatedWorkspaceSource, WORKSPACE_METHODS } from '../../../extension/review/isolatedSource';
import { reviewState } from '../../../extension/review/reviewSummary';

const FILES = ['a.txt', 'b.txt'] as const;
const SLOTS = 4;
const SESSION = 's';
const PROJECT = '/p';

type FileName = (typeof FILES)[number];
type Intent = 'pending' | 'accepted' | 'rejected';

export type Step =
  | { kind: 'turn'; edits: { file: number; slot: number }[] }
  | { kind: 'hunk'; pick: number; accept: boolean }
  | { kind: 'acceptTurn'; pick: number }
  | { kind: 'rejectTurn'; pick: number }
  | { kind: 'undoTurn'; pick: number }
  | { kind: 'personEdit'; file: number; slot: number }
  | { kind: 'personUndo'; pick: number }
  | { kind: 'restart' }
  | { kind: 'inFile'; pick: number };

interface ModelHunk {
  turn: number;
  file: FileName;
  slot: number;
  from: string;
  to: string;
  intent: Intent;
  landed: boolean;
  /** The discard epoch of its file when proposed. */
  epoch: number;
  /** Its turn's file is reviewed in the file: pending means written in, whenever it can be. */
  inFile: boolean;
}

const text = (slots: readonly string[]) => slots.map((v, i) => `${v}\n= ${i}\n`).join('');
const original = (file: FileName) => Array.from({ length: SLOTS }, (_, i) => `${file[0]}${i}`);
const enc = (s: string) => new TextEncoder().encode(s);
const dec = (c: Content) => (c === null ? null : new TextDecoder().decode(c));
const abs = (file: string) => `${PROJECT}/${file}`;

function shown(h: ModelHunk): string {
  if (h.intent === 'pending') return 'pending';
  if (h.intent === 'accepted') return h.landed ? 'accepted' : 'conflict';
  return h.landed ? 'conflict' : 'rejected';
}

class MemoryTree implements RealTree {
  readonly files = new Map<string, string>();
  async read(path: string): Promise<Content> {
    const t = this.files.get(path);
    return t === undefined ? null : enc(t);
  }
  async write(path: string, content: Content): Promise<void> {
    if (content === null) this.files.delete(path);
    else this.files.set(path, dec(content)!);
  }
}

/** The agent's copy: `_accord/...` methods over slot arrays (base = the original). */
function fakeAgent(copy: Map<FileName, string[]>) {
  return async (method: string, params: Record<string, unknown>): Promise<unknown> => {
    if (method === WORKSPACE_METHODS.status) return { mode: 'shadow-copy', root: '/agent', applyTo: '/project', base: 'abc', sandbox: { state: 'unsandboxed', reason: 'test' }, linkedReadOnly: [] };
    const changed = FILES.filter((f) => text(copy.get(f)!) !== text(original(f)));
    if (method === WORKSPACE_METHODS.listChanges) return { changes: changed.map((path) => ({ path, status: 'modified', additions: 1, deletions: 1, binary: false })) };
    if (method === WORKSPACE_METHODS.readFile) {
      const f = params.path as FileName;
      return { path: f, baseText: text(original(f)), currentText: text(copy.get(f)!), binary: false };
    }
    if (method === WORKSPACE_METHODS.discard) {
      const paths = (params.paths as FileName[]).filter((p) => changed.includes(p));
      for (const p of paths) copy.set(p, original(p));
      return { discarded: paths };
    }
    throw new Error(`unexpected ${method}`);
  };
}

/** Runs one sequence; throws (with the step) at the first difference from the model. */
export async function runSequence(steps: readonly Step[]): Promise<void> {
  const tree = new MemoryTree();
  for (const f of FILES) tree.files.set(abs(f), text(original(f)));
  const store = new ReviewStore(tree);
  const copy = new Map<FileName, string[]>(FILES.map((f) => [f, original(f)]));
  const callAgent = fakeAgent(copy);
  const newSource = () => new IsolatedWorkspaceSource(store, callAgent, PROJECT, { projectTop: async () => PROJECT, readProject: (p) => tree.read(p) });
  let source = newSource();

  // The model.
  const disk = new Map<FileName, string[]>(FILES.map((f) => [f, original(f)]));
  const hunks: ModelHunk[] = [];
  const epochs = new Map<FileName, number>(FILES.map((f) => [f, 0]));
  const personEdits: { file: FileName; slot: number; before: string; value: string }[] = [];
  let told = new Set<FileName>();
  let turns = 0;
  let serial = 0;

  const move = (h: ModelHunk, land: boolean): void => {
    if (h.landed === land) return;
    const slots = disk.get(h.file)!;
    const [from, to] = land ? [h.from, h.to] : [h.to, h.from];
    if (slots[h.slot] === from) slots[h.slot] = to;
    else if (slots[h.slot] !== to) return; // the person's own edit is there: a conflict, nothing written
    h.landed = land;
  };
  const open = () => hunks.filter((h) => shown(h) === 'pending' || shown(h) === 'conflict');
  /** Landing a review in the file also (re)writes its pending hunks that are not in yet. */
  const landsAgain = (turn: number, file: FileName) => {
    for (const h of hunks) if (h.turn === turn && h.file === file && h.inFile && h.intent === 'pending') move(h, true);
  };
  const reject = (h: ModelHunk) => {
    h.intent = 'rejected';
    told.add(h.file);
    move(h, false);
  };
  const reviewOf = (turn: number, file: FileName): FileReview | undefined => store.get(`${SESSION}\u0000${turn}\u0000${abs(file)}`);
  const storeHunk = (h: ModelHunk): { review: FileReview; index: number } => {
    const review = reviewOf(h.turn, h.file);
    assert.ok(review, `turn ${h.turn} has a review of ${h.file}`);
    const index = review.hunks.findIndex((x) => x.baseStart === 2 * h.slot);
    assert.ok(index >= 0, `turn ${h.turn}'s review of ${h.file} has the hunk of slot ${h.slot}`);
    return { review, index };
  };

  const check = (where: string): void => {
    for (const f of FILES) {
      assert.equal(tree.files.get(abs(f)), text(disk.get(f)!), `${where}: ${f} on disk`);
    }
    const expectedTurns = new Set(hunks.map((h) => `${h.turn}\u0000${h.file}`));
    for (const review of store.inSession(SESSION)) {
      const name = review.path.slice(PROJECT.length + 1) as FileName;
      assert.ok(expectedTurns.has(`${review.turnId}\u0000${name}`), `${where}: no review of ${name} expected in turn ${review.turnId}`);
    }
    for (const key of expectedTurns) {
      const [turn, file] = key.split('\u0000') as [string, FileName];
      const mine = hunks.filter((h) => String(h.turn) === turn && h.file === file);
      const review = reviewOf(Number(turn), file)!;
      assert.ok(review, `${where}: turn ${turn} reviews ${file}`);
      assert.equal(review.hunks.length, mine.length, `${where}: turn ${turn} shows only its own hunks of ${file}`);
      for (const h of mine) {
        const { index } = storeHunk(h);
        assert.equal(hunkState(review, index), shown(h), `${where}: turn ${turn} ${file} slot ${h.slot}`);
      }
      const states = new Set(mine.map(shown));
      const label = states.has('pending') || states.has('conflict') ? 'pending' : states.size === 1 ? [...states][0] : 'partial';
      assert.equal(reviewState(review), label, `${where}: card label of turn ${turn} ${file}`);
    }
    for (const f of FILES) {
      const expected = original(f);
      for (const h of hunks) if (h.file === f && h.epoch === epochs.get(f)) expected[h.slot] = h.to;
      assert.deepEqual(copy.get(f), expected, `${where}: agent's copy of ${f}`);
    }
  };

  /** What the session wiring does after every change: files wholly rejected go back to the base in the agent's copy. */
  const syncDiscards = async (): Promise<void> => {
    const paths = pathsToDiscard(store.inSession(SESSION));
    if (paths.length === 0) return;
    await source.discard(SESSION, paths);
    store.discarded(SESSION, paths);
  };
  const modelDiscards = (): void => {
    for (const f of FILES) {
      const chain = hunks.filter((h) => h.file === f && h.epoch === epochs.get(f));
      if (chain.length > 0 && chain.every((h) => shown(h) === 'rejected')) epochs.set(f, epochs.get(f)! + 1);
    }
  };

  for (const [n, step] of steps.entries()) {
    const where = `step ${n} ${JSON.stringify(step)}`;
    switch (step.kind) {
      case 'turn': {
        const turn = ++turns;
        const note = store.takeContextNote(SESSION) ?? '';
        for (const f of FILES) {
          if (told.has(f)) assert.match(note, new RegExp(`\\b${f.replace('.', '\\.')}\\b`), `${where}: the note names ${f}`);
          else assert.doesNotMatch(note, new RegExp(`\\b${f.replace('.', '\\.')}\\b`), `${where}: the note does not name ${f}`);
        }
        told = new Set();
        await source.beginTurn();
        for (const { file: fi, slot } of step.edits) {
          const file = FILES[fi]!;
          const slots = copy.get(file)!;
          const from = slots[slot]!;
          const to = `${file[0]}${slot}.t${turn}.${serial++}`;
          slots[slot] = to;
          const same = hunks.find((h) => h.turn === turn && h.file === file && h.slot === slot);
          if (same) same.to = to;
          else hunks.push({ turn, file, slot, from, to, intent: 'pending', landed: false, epoch: epochs.get(file)!, inFile: false });
        }
        await source.endTurn(SESSION, String(turn));
        break;
      }
      case 'hunk': {
        const candidates = open();
        if (candidates.length === 0) continue;
        const h = candidates[step.pick % candidates.length]!;
        const { review, index } = storeHunk(h);
        await store.decideHunk(review, index, step.accept ? 'accepted' : 'rejected');
        if (step.accept) {
          h.intent = 'accepted';
          move(h, true);
        } else reject(h);
        landsAgain(h.turn, h.file);
        break;
      }
      case 'acceptTurn':
      case 'rejectTurn': {
        const live = [...new Set(open().map((h) => h.turn))];
        if (live.length === 0) continue;
        const turn = live[step.pick % live.length]!;
        const accept = step.kind === 'acceptTurn';
        // As the commands do: the files that still wait for a decision.
        await store.decideFiles(store.inTurn(SESSION, String(turn)).filter(isPending), accept ? 'accepted' : 'rejected');
        const decided = open().filter((x) => x.turn === turn);
        for (const h of decided) {
          if (accept) {
            h.intent = 'accepted';
            move(h, true);
          } else reject(h);
        }
        for (const f of new Set(decided.map((h) => h.file))) landsAgain(turn, f);
        break;
      }
      case 'undoTurn': {
        if (turns === 0) continue;
        const turn = (step.pick % turns) + 1;
        await store.undoTurn(SESSION, String(turn));
        for (const h of hunks.filter((x) => x.turn === turn)) if (h.intent !== 'rejected' || h.landed) reject(h);
        break;
      }
      case 'personEdit': {
        const file = FILES[step.file]!;
        const slots = disk.get(file)!;
        const value = `P${serial++}`;
        personEdits.push({ file, slot: step.slot, before: slots[step.slot]!, value });
        slots[step.slot] = value;
        tree.files.set(abs(file), text(slots));
        break;
      }
      case 'personUndo': {
        const live = personEdits.filter((e) => disk.get(e.file)![e.slot] === e.value);
        if (live.length === 0) continue;
        const edit = live[step.pick % live.length]!;
        const slots = disk.get(edit.file)!;
        slots[edit.slot] = edit.before;
        tree.files.set(abs(edit.file), text(slots));
        break;
      }
      case 'inFile': {
        const groups = [...new Set(hunks.filter((h) => shown(h) === 'pending').map((h) => `${h.turn}\u0000${h.file}`))];
        if (groups.length === 0) continue;
        const [turn, file] = groups[step.pick % groups.length]!.split('\u0000') as [string, FileName];
        await store.reviewInFile(reviewOf(Number(turn), file)!);
        for (const h of hunks) if (String(h.turn) === turn && h.file === file) h.inFile = true;
        landsAgain(Number(turn), file);
        break;
      }
      case 'restart': {
        source.dispose();
        source = newSource();
        await source.recover(SESSION, 'earlier');
        break;
      }
    }
    modelDiscards();
    await syncDiscards();
    check(where);
  }
}

export const stepArb: fc.Arbitrary<Step> = fc.oneof(
  { weight: 4, arbitrary: fc.record({ kind: fc.constant('turn' as const), edits: fc.array(fc.record({ file: fc.nat(FILES.length - 1), slot: fc.nat(SLOTS - 1) }), { minLength: 1, maxLength: 4 }) }) },
  { weight: 4, arbitrary: fc.record({ kind: fc.constant('hunk' as const), pick: fc.nat(20), accept: fc.boolean() }) },
  { weight: 2, arbitrary: fc.record({ kind: fc.constant('acceptTurn' as const), pick: fc.nat(20) }) },
  { weight: 1, arbitrary: fc.record({ kind: fc.constant('rejectTurn' as const), pick: fc.nat(20) }) },
  { weight: 2, arbitrary: fc.record({ kind: fc.constant('undoTurn' as const), pick: fc.nat(20) }) },
  { weight: 2, arbitrary: fc.record({ kind: fc.constant('personEdit' as const), file: fc.nat(FILES.length - 1), slot: fc.nat(SLOTS - 1) }) },
  { weight: 2, arbitrary: fc.record({ kind: fc.constant('personUndo' as const), pick: fc.nat(20) }) },
  { weight: 1, arbitrary: fc.record({ kind: fc.constant('restart' as const) }) },
  { weight: 1, arbitrary: fc.record({ kind: fc.constant('inFile' as const), pick: fc.nat(20) }) },
);

