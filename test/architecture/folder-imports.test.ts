import { readdirSync, readFileSync } from 'node:fs';
import { dirname, join, normalize, relative, sep } from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';

/*
 * The folder map of docs/architecture.md, enforced: which part of src/ may import which. A new
 * arrow (a folder importing one it did not) fails here until it is added below and to the map, on
 * purpose; an arrow that would close a loop fails whatever the table says.
 */

const SRC = fileURLToPath(new URL('../../src/', import.meta.url));

/** The modules of src/ itself every folder may use: they import nothing of ours but the clock. */
const SHARED = new Set(['logger.ts', 'named-error.ts', 'error-chain.ts', 'ttl-cache.ts', 'read-body.ts']);

/**
 * What each part may import. `slack/` is split by its folders (their own layers); the entry
 * points of src/ are their own parts; `shared` is the modules above.
 */
const ALLOWED: Record<string, readonly string[]> = {
  bin: ['cli.ts'],
  'cli.ts': ['catalog', 'config.ts', 'render', 'reports', 'shared', 'slack/app', 'ticketing', 'time'],
  'compose.ts': [
    'catalog',
    'config.ts',
    'digest',
    'forecast',
    'history',
    'lifecycle',
    'mcp',
    'observability',
    'promo',
    'render',
    'reports',
    'shared',
    'simulator',
    'slack/replies',
    'slack/app',
    'store',
    'ticketing',
    'time',
    'watches',
  ],
  'config.ts': ['catalog', 'config-values.ts', 'figures', 'reports', 'shared', 'store', 'ticketing', 'watches'],
  'config-values.ts': ['ticketing'],
  'main.ts': ['compose.ts', 'config.ts', 'lifecycle', 'render', 'sandbox', 'shared', 'store'],
  shared: ['time'],
  catalog: ['shared', 'store', 'ticketing', 'time'],
  digest: ['catalog', 'figures', 'forecast', 'history', 'shared', 'store', 'time'],
  figures: [],
  forecast: ['history', 'ticketing', 'time'],
  history: ['reports', 'shared', 'store', 'ticketing', 'time'],
  lifecycle: ['shared', 'time'],
  // Agents' front end beside slack/: the same use cases, never slack/ (its Slack side is handed in).
  mcp: ['catalog', 'figures', 'forecast', 'lifecycle', 'promo', 'reports', 'shared', 'store', 'ticketing', 'time'],
  observability: ['lifecycle', 'shared', 'store', 'ticketing', 'time'],
  promo: ['catalog', 'reports', 'shared', 'store', 'ticketing', 'time'],
  render: [
    'catalog',
    'digest',
    'figures',
    'forecast',
    'history',
    'promo',
    'reports',
    'store',
    'ticketing',
    'time',
    'watches',
  ],
  reports: ['figures', 'observability', 'shared', 'store', 'ticketing', 'time'],
  sandbox: ['catalog', 'compose.ts', 'config.ts', 'history', 'render', 'shared', 'simulator', 'slack/listeners'],
  simulator: ['shared', 'ticketing', 'time'],
  store: ['shared', 'time'],
  ticketing: ['shared', 'store', 'time'],
  time: [],
  watches: ['catalog', 'figures', 'forecast', 'reports', 'shared', 'store', 'ticketing', 'time'],
  'slack/replies': ['observability', 'render', 'reports', 'shared', 'store', 'ticketing'],
  // It builds the areas' Slack sides (reports, watches, digests) too, with their messages.
  'slack/app': [
    'config.ts',
    'digest',
    'lifecycle',
    'mcp',
    'observability',
    'promo',
    'render',
    'shared',
    'slack/replies',
    'slack/deps',
    'slack/adapters',
    'slack/listeners',
    'slack/reports',
    'store',
    'time',
    'watches',
  ],
  'slack/deps': [
    'catalog',
    'config.ts',
    'digest',
    'figures',
    'forecast',
    'lifecycle',
    'mcp',
    'observability',
    'promo',
    'render',
    'reports',
    'shared',
    'slack/replies',
    'store',
    'ticketing',
    'time',
    'watches',
  ],
  'slack/adapters': [
    'digest',
    'figures',
    'mcp',
    'observability',
    'promo',
    'render',
    'shared',
    'slack/replies',
    'slack/deps',
    'slack/reports',
    'watches',
  ],
  'slack/listeners': [
    'catalog',
    'digest',
    'figures',
    'forecast',
    'observability',
    'promo',
    'render',
    'shared',
    'slack/replies',
    'slack/deps',
    'slack/adapters',
    'slack/modals',
    'slack/reports',
    'store',
    'ticketing',
    'time',
    'watches',
  ],
  'slack/modals': ['render', 'slack/replies', 'slack/deps', 'slack/adapters', 'ticketing'],
  'slack/reports': [
    'figures',
    'forecast',
    'observability',
    'render',
    'reports',
    'shared',
    'slack/replies',
    'slack/deps',
    'store',
    'ticketing',
    'watches',
  ],
};

/**
 * `reports/queue/` is part of `reports/`, but what is inside it (BullMQ, its Lua, the keys in
 * Redis, the slots) stays inside: from outside `reports/` only these modules of it are imported.
 */
const QUEUE_ENTRIES = new Set([
  'report-queue.ts', // the one shape of the queue, its progress and outcome
  'build-report-queue.ts', // the queue for one process or replicas; inProcessQueue for the CLI
  'shared-report-job.ts', // a request as it waits in Redis, which any replica delivers
  'report-waiting.ts', // the limits of reports waiting, which the configuration defaults to
  'watch-share.ts', // the watches' share, likewise
]);

/** Imports of `reports/queue/` from outside `reports/` that are not one of its entries. */
function queueInsidesReached(): string[] {
  const queue = join(SRC, 'reports', 'queue');
  const found: string[] = [];
  for (const file of readdirSync(SRC, { recursive: true, encoding: 'utf8' }).filter((f) => f.endsWith('.ts'))) {
    if (file.startsWith(`reports${sep}`)) continue;
    const path = join(SRC, file);
    for (const match of readFileSync(path, 'utf8').matchAll(/from '(\.{1,2}\/[^']+)'/g)) {
      const target = normalize(join(dirname(path), (match[1] as string).replace(/\.js$/, '.ts')));
      if (dirname(target) === queue && !QUEUE_ENTRIES.has(relative(queue, target))) {
        found.push(`${file} -> reports/queue/${relative(queue, target)}`);
      }
    }
  }
  return found;
}

/** The part of src/ a file belongs to. */
function partOf(file: string): string {
  const parts = relative(SRC, file).split(sep);
  if (parts.length === 1) return SHARED.has(parts[0] as string) ? 'shared' : (parts[0] as string);
  if (parts[0] === 'slack' && parts.length > 2) return `slack/${parts[1]}`;
  return parts[0] as string;
}

/** Every arrow between parts in src/ today, with a file that draws it. */
function arrows(): Map<string, string> {
  const found = new Map<string, string>();
  const files = readdirSync(SRC, { recursive: true, encoding: 'utf8' }).filter((file) => file.endsWith('.ts'));
  for (const file of files) {
    const path = join(SRC, file);
    const from = partOf(path);
    for (const match of readFileSync(path, 'utf8').matchAll(/from '(\.{1,2}\/[^']+)'/g)) {
      const target = normalize(join(dirname(path), (match[1] as string).replace(/\.js$/, '.ts')));
      const to = partOf(target);
      if (to !== from && !found.has(`${from} -> ${to}`)) found.set(`${from} -> ${to}`, file);
    }
  }
  return found;
}

/** A loop in `graph`, as the parts it runs through, or undefined. */
function loopIn(graph: Record<string, readonly string[]>): string[] | undefined {
  const state = new Map<string, 'open' | 'done'>();
  const path: string[] = [];
  const visit = (part: string): string[] | undefined => {
    if (state.get(part) === 'done') return undefined;
    if (state.get(part) === 'open') return [...path.slice(path.indexOf(part)), part];
    state.set(part, 'open');
    path.push(part);
    for (const next of graph[part] ?? []) {
      const loop = visit(next);
      if (loop) return loop;
    }
    path.pop();
    state.set(part, 'done');
    return undefined;
  };
  for (const part of Object.keys(graph)) {
    const loop = visit(part);
    if (loop) return loop;
  }
  return undefined;
}

const ARCHITECTURE_DOC = fileURLToPath(new URL('../../docs/architecture.md', import.meta.url));

/** The "may import" column of the folder map's table in docs/architecture.md, by part. */
function documentedMap(doc: string): Record<string, string[]> {
  const section = doc.slice(doc.indexOf('## Folder map'));
  const partOf = (cell: string) =>
    cell.trim() === 'shared modules' ? 'shared' : cell.trim().replace(/^`|`$/g, '').replace(/\/$/, '');
  const rows: Record<string, string[]> = {};
  for (const line of section.split('\n')) {
    const cells = line.split(' | ');
    if (!line.startsWith('| ') || cells.length !== 3 || line.startsWith('| part of')) continue;
    const imports = (cells[2] as string).replace(/ \|$/, '');
    rows[partOf((cells[0] as string).slice(2))] =
      imports === 'nothing of ours' ? [] : imports.split(', ').map(partOf).sort();
  }
  return rows;
}

describe('the folder map', () => {
  it('names every part of src/', () => {
    const parts = new Set(
      readdirSync(SRC, { recursive: true, encoding: 'utf8' })
        .filter((file) => file.endsWith('.ts'))
        .map((file) => partOf(join(SRC, file))),
    );
    expect([...parts].filter((part) => !(part in ALLOWED))).toEqual([]);
  });

  it('has no import outside the map: a new arrow is added to the map on purpose, or not drawn', () => {
    const outside = [...arrows()]
      .filter(([arrow]) => {
        const [from, to] = arrow.split(' -> ') as [string, string];
        return !(ALLOWED[from] ?? []).includes(to);
      })
      .map(([arrow, file]) => `${arrow} (${file})`);
    expect(outside).toEqual([]);
  });

  it('runs one way: no loop between parts', () => {
    expect(loopIn(ALLOWED)).toBeUndefined();
  });

  it('has no import loop between files either (a type-only import counts)', () => {
    const graph: Record<string, string[]> = {};
    for (const file of readdirSync(SRC, { recursive: true, encoding: 'utf8' }).filter((f) => f.endsWith('.ts'))) {
      const path = join(SRC, file);
      graph[file] = [...readFileSync(path, 'utf8').matchAll(/from '(\.{1,2}\/[^']+)'/g)].map((match) =>
        relative(SRC, normalize(join(dirname(path), (match[1] as string).replace(/\.js$/, '.ts')))),
      );
    }
    expect(loopIn(graph)).toBeUndefined();
  });

  it("reaches the report queue's inside only through its entries from outside reports/", () => {
    expect(queueInsidesReached()).toEqual([]);
  });

  it("is the table of docs/architecture.md's folder map, row for row", () => {
    expect(documentedMap(readFileSync(ARCHITECTURE_DOC, 'utf8'))).toEqual(
      Object.fromEntries(Object.entries(ALLOWED).map(([part, imports]) => [part, [...imports].sort()])),
    );
  });

  it('reads a changed row of the documented table as a difference (the check can fail)', () => {
    const doc = readFileSync(ARCHITECTURE_DOC, 'utf8').replace('| `figures/` | ', '| `figures/` | x | `time/` |');
    expect(documentedMap(doc).figures).not.toEqual(ALLOWED.figures);
  });

  it('finds a loop where there is one (the check can fail)', () => {
    expect(loopIn({ a: ['b'], b: ['c'], c: ['a'] })).toEqual(['a', 'b', 'c', 'a']);
    expect(loopIn({ a: ['b'], b: [] })).toBeUndefined();
  });
});
