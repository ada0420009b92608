/**
 * The forecast bench's tables and targets (`bench/forecast.ts`): issue 35's on its family, issue
 * 45's on every family with the held-out one apart, each target with its verdict.
 */
import { HELD_OUT, SHAPES, type Shape } from './forecast-curves.js';
import { NAMES } from './forecast-methods.js';
import { FINISHED, ORGS_PER_SHAPE, out, POINTS, RUN_FAMILIES, SEEDS, SHORT, TO_FORECAST } from './forecast-settings.js';
import { coverage, groupOf, mae, mean, sellOutMae, type Tallies, type Tally, tally } from './forecast-tallies.js';

const f3 = (x: number) => x.toFixed(3);
const f1 = (x: number) => (Number.isNaN(x) ? '-' : x.toFixed(1));
const pct = (x: number) => `${(100 * x).toFixed(0)}%`;
const row = (cells: string[]) => out(`| ${cells.join(' | ')} |`);
const cellText = (t: Tally | undefined) => (t && t.rangeN > 0 ? `${f3(mae(t))} (${pct(coverage(t))})` : f3(mae(t)));
const verdict = (ok: boolean) => (ok ? 'pass' : 'MISS');
const STARTS = ['on-sale', 'part-way'] as const;

/** The run's first line: how many forecasts, of which families, and the one held out. */
export function printSummary(tallies: Tallies) {
  out(
    `\nForecast benchmark: ${tallies.cases} forecasts over ${SEEDS.length} seed(s), families ${RUN_FAMILIES.join(', ')} ` +
      `(${tallies.skipped} points before the history skipped); held out of all tuning: ${HELD_OUT}`,
  );
}

/** Issue 35's tables and targets, on the family they were set on. */
export function printIssue35(tallies: Tallies) {
  const get = (key: string) => tallies.cells.get(key);
  out(
    `\nForecast benchmark, the issue 35 family: ${SEEDS.length} seed(s) x ${SHAPES.length} shapes x ${ORGS_PER_SHAPE} organizations, ` +
      `${FINISHED} finished + ${TO_FORECAST} to forecast each; ${get('forecaster|all')?.n ?? 0} forecasts\n`,
  );
  out('Mean absolute error of the sold at the start, as a share of capacity (range coverage in brackets)\n');
  row(['shape', 'point', ...NAMES]);
  row(['---', '---', ...NAMES.map(() => '---')]);
  /** Per method, the mean over shape x point cells (each cell weighs the same). */
  const cellMeans: Record<string, { err: number[]; sellOut: Map<Shape, Tally>; cover: number[] }> = {};
  for (const name of NAMES) cellMeans[name] = { err: [], sellOut: new Map(), cover: [] };
  for (const shape of SHAPES) {
    for (const point of POINTS) {
      const cells = NAMES.map((name) => {
        const t = get(`${name}|${shape}|${point}`);
        const m = cellMeans[name] as (typeof cellMeans)[string];
        m.err.push(mae(t));
        if (t && t.rangeN > 0) m.cover.push(coverage(t));
        const s = m.sellOut.get(shape) ?? tally();
        s.sellOutErr += t?.sellOutErr ?? 0;
        s.sellOutN += t?.sellOutN ?? 0;
        m.sellOut.set(shape, s);
        return t && t.rangeN > 0 ? `${f3(mae(t))} (${pct(coverage(t))})` : f3(mae(t));
      });
      row([shape, `${point * 100}%`, ...cells]);
    }
  }
  const avg = (name: string) => mean(cellMeans[name]?.err ?? []);
  const avgCover = (name: string) => coverage(get(`${name}|all`));
  row([
    '**average**',
    '',
    ...NAMES.map((name) =>
      Number.isNaN(avgCover(name)) ? `**${f3(avg(name))}**` : `**${f3(avg(name))}** (${pct(avgCover(name))})`,
    ),
  ]);
  row([
    'per seed',
    '',
    ...NAMES.map((name) => {
      const each = SEEDS.map((seed) => mae(get(`${name}|seed|${seed}`)));
      return `${f3(Math.min(...each))}-${f3(Math.max(...each))}`;
    }),
  ]);

  out('\nMean absolute error of the sell-out time in days, events that sell out after the forecast\n');
  row(['shape', ...NAMES]);
  row(['---', ...NAMES.map(() => '---')]);
  for (const shape of SHAPES) row([shape, ...NAMES.map((name) => f1(sellOutMae(cellMeans[name]?.sellOut.get(shape))))]);
  row(['**all**', ...NAMES.map((name) => `**${f1(sellOutMae(get(`${name}|all`)))}**`)]);

  // The targets (issue 35): against the forecaster after the change.
  const F = 'forecaster';
  out('\nTargets (issue 35)');
  const fErr = avg(F);
  out(
    `- ${verdict(fErr <= 0.8 * avg('pickup'))}: error ${f3(fErr)} <= 0.8 x pickup's ${f3(avg('pickup'))} (${f3(fErr / avg('pickup'))} x)`,
  );
  out(
    `- ${verdict(fErr <= 0.4 * avg('line'))}: error ${f3(fErr)} <= 0.4 x a straight line's ${f3(avg('line'))} (${f3(fErr / avg('line'))} x)`,
  );
  const worst = SHAPES.flatMap((shape) =>
    POINTS.map((point) => ({
      shape,
      point,
      ratio: mae(get(`${F}|${shape}|${point}`)) / mae(get(`pickup|${shape}|${point}`)),
    })),
  ).sort((a, b) => b.ratio - a.ratio)[0];
  if (worst)
    out(
      `- ${verdict(worst.ratio <= 1.2)}: no shape and point worse than pickup by more than 20% (worst: ${worst.shape} at ${worst.point * 100}%, ${f1(100 * (worst.ratio - 1))}%)`,
    );
  const cover = avgCover(F);
  out(`- ${verdict(cover >= 0.75 && cover <= 0.85)}: the 80% range covers ${pct(cover)} (75-85%)`);
  const fewCover = avgCover('forecaster, 2 finished');
  out(
    `- ${verdict(fewCover >= 0.75 && fewCover <= 0.85)}: with 2 finished events, the pooled prior's 80% range covers ${pct(fewCover)} (75-85%)`,
  );
  const sellOutMisses = SHAPES.filter(
    (shape) => sellOutMae(cellMeans[F]?.sellOut.get(shape)) > sellOutMae(cellMeans.line?.sellOut.get(shape)),
  );
  out(
    `- ${verdict(sellOutMisses.length === 0)}: sell-out time no further off than a straight line's for any shape${sellOutMisses.length ? ` (further for ${sellOutMisses.join(', ')})` : ''}`,
  );
}

/** Issue 45's tables and targets: every family, the held-out one apart. */
export function printFamilies(tallies: Tallies) {
  const get = (key: string) => tallies.cells.get(key);
  out(
    '\nFamilies (issue 45): mean absolute error of the sold at the start, share of capacity (range coverage in brackets)',
  );
  const shown = ['forecaster', 'pickup', 'before', 'line'];
  const ordered = [...RUN_FAMILIES.filter((f) => f !== HELD_OUT), ...RUN_FAMILIES.filter((f) => f === HELD_OUT)];
  for (const family of ordered) {
    out(`\n${family === HELD_OUT ? `**${family}: HELD OUT of all tuning**` : `**${family}**`}\n`);
    row(['shape', 'history starts', 'forecasts', ...shown, 'forecaster / pickup']);
    row(['---', '---', '---', ...shown.map(() => '---'), '---']);
    for (const label of tallies.labelsOf.get(family) ?? []) {
      for (const start of STARTS) {
        const key = (name: string) => `f|${name}|${family}|${label}|${start}`;
        const t = get(key('forecaster'));
        if (!t) continue;
        row([
          label,
          start,
          String(t.n),
          ...shown.map((name) => cellText(get(key(name)))),
          f3(mae(t) / mae(get(key('pickup')))),
        ]);
      }
    }
    const all = (name: string) => get(`f|${name}|${family}`);
    row([
      '**all**',
      '',
      String(all('forecaster')?.n ?? 0),
      ...shown.map((name) => cellText(all(name))),
      f3(mae(all('forecaster')) / mae(all('pickup'))),
    ]);
  }
  out('\nTargets (issue 45), on the held-out family and on the rest');
  // A short run's cells hold a few dozen forecasts each: a cell's ratio swings with one organization.
  if (SHORT) out('(a short run: too few forecasts a cell to judge these; the full run is the measure)');
  for (const group of ['held out', 'the rest'] as const) {
    const families = RUN_FAMILIES.filter((f) => groupOf(f) === group);
    const name = group === 'held out' ? `held out (${HELD_OUT})` : `the rest (${families.join(', ')})`;
    if (families.length === 0) {
      out(`- ${name}: not run`);
      continue;
    }
    // The mean over family x shape x start x point cells (each cell weighs the same).
    const cells = families.flatMap((family) =>
      [...(tallies.labelsOf.get(family) ?? [])].flatMap((label) =>
        STARTS.flatMap((start) => POINTS.map((point) => `${family}|${label}|${start}|${point}`)),
      ),
    );
    const cellMean = (method: string) =>
      mean(cells.map((cell) => mae(get(`f|${method}|${cell}`))).filter((x) => !Number.isNaN(x)));
    const ratio = cellMean('forecaster') / cellMean('pickup');
    out(
      `- ${verdict(ratio <= 0.9)}: ${name}: error ${f3(cellMean('forecaster'))} <= 0.9 x pickup's ${f3(cellMean('pickup'))} (${f3(ratio)} x)`,
    );
    const perSeed = SEEDS.map((seed) => {
      const key = (method: string) => get(`g|${method}|${group}|seed|${seed}`);
      return mae(key('forecaster')) / mae(key('pickup'));
    });
    out(`  per seed, pooled: ${f3(Math.min(...perSeed))}-${f3(Math.max(...perSeed))} x pickup's`);
    const worst = families
      .flatMap((family) =>
        [...(tallies.labelsOf.get(family) ?? [])].flatMap((label) =>
          STARTS.map((start) => {
            const key = (method: string) => get(`f|${method}|${family}|${label}|${start}`);
            return { family, label, start, ratio: mae(key('forecaster')) / mae(key('pickup')) };
          }),
        ),
      )
      .filter((w) => !Number.isNaN(w.ratio))
      .sort((x, y) => y.ratio - x.ratio)[0];
    if (worst)
      out(
        `- ${verdict(worst.ratio <= 1.2)}: ${name}: no shape and start worse than 1.2 x pickup's (worst: ${worst.label}, history from ${worst.start}, ${f3(worst.ratio)} x)`,
      );
    const cover = coverage(get(`g|forecaster|${group}`));
    out(
      `- ${verdict(cover >= 0.78 && cover <= 0.85)}: ${name}: the 80% range holds the outcome ${pct(cover)} (78-85%)`,
    );
  }
}
