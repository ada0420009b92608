/**
 * The forecast bench's settings (`bench/forecast.ts`): how many seeds, organizations and events
 * (`BENCH_SHORT`, `BENCH_SEEDS`), which families run (`BENCH_FAMILIES`), the points forecast at,
 * the time units, and where its lines go.
 */
import { FAMILIES, type Family } from './forecast-curves.js';

export const SHORT = process.env.BENCH_SHORT === '1';
/** `BENCH_SEEDS=6,7,8` runs other seeds: what the methods were tuned on must hold on seeds they were not. */
export const SEEDS = process.env.BENCH_SEEDS
  ? process.env.BENCH_SEEDS.split(',').map(Number)
  : SHORT
    ? [1]
    : [1, 2, 3, 4, 5];
export const ORGS_PER_SHAPE = SHORT ? 6 : 16;
/** Organizations of each of issue 45's families, a seed. */
export const ORGS_PER_FAMILY = SHORT ? 16 : 60;
export const FINISHED = 8;
export const TO_FORECAST = 5;
/** Events to forecast per organization in issue 45's families. */
export const TO_FORECAST_NEW = 4;
export const POINTS = [0.25, 0.5, 0.75] as const;
export const HOUR = 3_600_000;
export const DAY = 24 * HOUR;
export const READ_EVERY = 6 * HOUR;
export const T0 = Date.parse('2026-06-01T00:00:00Z');
export const RUN_FAMILIES: readonly Family[] = process.env.BENCH_FAMILIES
  ? FAMILIES.filter((f) => (process.env.BENCH_FAMILIES as string).split(',').includes(f))
  : FAMILIES;

export const out = (line: string) => process.stdout.write(`${line}\n`);
