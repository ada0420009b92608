/**
 * The forecast bench's random stream and booking curves (`bench/forecast.ts`): the seeded
 * generator, the families and the one held out of all tuning, issue 35's shapes and issue 45's
 * (beta, logistic, spike, mixed), each event's curve jittered around its organization's.
 */

/** mulberry32: a small seeded generator. */
export function rng(seed: number) {
  let a = seed >>> 0;
  const next = () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4_294_967_296;
  };
  const uniform = (lo: number, hi: number) => lo + (hi - lo) * next();
  const normal = () => {
    const u = Math.max(1e-12, next());
    return Math.sqrt(-2 * Math.log(u)) * Math.cos(2 * Math.PI * next());
  };
  return { next, uniform, normal };
}
export type Rng = ReturnType<typeof rng>;

export const FAMILIES = ['issue 35', 'beta', 'logistic', 'spike', 'mixed'] as const;
export type Family = (typeof FAMILIES)[number];
/** The new families with shapes of their own: the held-out family is drawn among these (mixed reuses the others'). */
export const HOLD_OUT_AMONG = ['beta', 'logistic', 'spike'] as const;
/**
 * The family kept out of all tuning (issue 45): the first draw of mulberry32(45) among
 * `HOLD_OUT_AMONG`, made and committed before any tuning. It is `beta`. Mixed organizations never
 * draw its shapes.
 */
export const HELD_OUT: Family = HOLD_OUT_AMONG[Math.floor(rng(45).next() * HOLD_OUT_AMONG.length)] as Family;

export const SHAPES = ['steady', 'late', 'late surge', 'early', 'S-curve'] as const;
export type Shape = (typeof SHAPES)[number];

/** One event's cumulative share of its demand by each share of its selling period, jittered per event. */
export function curveOf(shape: Shape, r: Rng): (x: number) => number {
  switch (shape) {
    case 'steady': {
      const a = r.uniform(0.85, 1.15);
      return (x) => x ** a;
    }
    case 'late': {
      const a = r.uniform(2, 3);
      return (x) => x ** a;
    }
    case 'late surge': {
      const base = r.uniform(0.15, 0.35);
      const from = r.uniform(0.78, 0.9);
      return (x) => (x < from ? (base * x) / from : base + (1 - base) * ((x - from) / (1 - from)) ** 0.8);
    }
    case 'early': {
      const a = r.uniform(2, 3.5);
      return (x) => 1 - (1 - x) ** a;
    }
    case 'S-curve': {
      const k = r.uniform(8, 13);
      const mid = r.uniform(0.4, 0.6);
      const s = (x: number) => 1 / (1 + Math.exp(-k * (x - mid)));
      return (x) => (s(x) - s(0)) / (s(1) - s(0));
    }
  }
}

/** Cumulative Beta(a, b) on [0, 1], tabulated (midpoint sums: finite where a or b is under 1). */
function betaCurve(a: number, b: number): (x: number) => number {
  const n = 1000;
  const cum = new Float64Array(n + 1);
  for (let i = 0; i < n; i += 1) {
    const x = (i + 0.5) / n;
    cum[i + 1] = (cum[i] as number) + x ** (a - 1) * (1 - x) ** (b - 1);
  }
  const total = cum[n] as number;
  return (x) => {
    const f = Math.min(n, Math.max(0, x * n));
    const i = Math.floor(f);
    if (i >= n) return 1;
    return ((cum[i] as number) + ((cum[i + 1] as number) - (cum[i] as number)) * (f - i)) / total;
  };
}

/** A logistic rise at `mid` with steepness `k`, scaled to run from 0 to 1 over the sale. */
function logisticCurve(k: number, mid: number): (x: number) => number {
  const s = (x: number) => 1 / (1 + Math.exp(-k * (x - mid)));
  return (x) => (s(x) - s(0)) / (s(1) - s(0));
}

/** `base` of the demand along x^power, the rest a burst at `at` (share of the sale) fading over `fade` (share). */
function spikeCurve(power: number, burst: number, at: number, fade: number): (x: number) => number {
  const whole = 1 - Math.exp(-(1 - at) / fade);
  return (x) => (1 - burst) * x ** power + burst * (x <= at ? 0 : (1 - Math.exp(-(x - at) / fade)) / whole);
}

/** One of issue 45's shapes: a name, and each event's curve (varying around the organization's). */
export interface ShapeSpec {
  label: string;
  curve(r: Rng, periodDays: number): (x: number) => number;
}

/** An organization's shape in one of issue 45's families (mixed: see `mixedShapes`). */
export function shapeOf(family: Exclude<Family, 'issue 35' | 'mixed'>, r: Rng): ShapeSpec {
  switch (family) {
    case 'beta': {
      // Issue 45's worst case was a late surge (Beta(a, b), a well above b: most demand in the last
      // weeks); a and b log-uniform on 0.5-5 drew one (mean over 0.8) for about 1 organization in
      // 12. A quarter of them are now drawn as one: b 0.5-1, a 4-12 times b.
      const surge = r.next() < 0.25;
      const b = Math.exp(r.uniform(Math.log(0.5), Math.log(surge ? 1 : 5)));
      const a = surge
        ? b * Math.exp(r.uniform(Math.log(4), Math.log(12)))
        : Math.exp(r.uniform(Math.log(0.5), Math.log(5)));
      const mean = a / (a + b);
      return {
        label:
          mean < 0.4 ? 'beta, early' : mean > 0.8 ? 'beta, late surge' : mean > 0.6 ? 'beta, late' : 'beta, middle',
        curve: (er) => betaCurve(a * Math.exp(0.15 * er.normal()), b * Math.exp(0.15 * er.normal())),
      };
    }
    case 'logistic': {
      const mid = r.uniform(0.25, 0.95);
      const k = Math.exp(r.uniform(Math.log(4), Math.log(25)));
      return {
        label: mid < 0.5 ? 'logistic, early' : mid < 0.7 ? 'logistic, middle' : 'logistic, late',
        curve: (er) =>
          logisticCurve(k * Math.exp(0.15 * er.normal()), Math.min(0.98, Math.max(0.05, mid + 0.05 * er.normal()))),
      };
    }
    case 'spike': {
      const onSale = r.next() < 0.5;
      const power = r.uniform(0.7, 2.5);
      const burst = r.uniform(0.15, 0.5);
      const at = onSale ? 0 : r.uniform(0.3, 0.85);
      return {
        label: onSale ? 'spike at on-sale' : 'spike at an announcement',
        curve: (er, periodDays) =>
          spikeCurve(
            power * Math.exp(0.1 * er.normal()),
            Math.min(0.8, burst * Math.exp(0.2 * er.normal())),
            // An announcement's day moves from event to event; the on-sale's does not.
            onSale ? 0 : Math.min(0.95, Math.max(0.1, at + 0.08 * er.normal())),
            er.uniform(0.3, 2) / periodDays,
          ),
      };
    }
  }
}

/** A mixed organization's two or three shapes, from the issue 35 shapes and the new families but the held-out one. */
export function mixedShapes(r: Rng): ShapeSpec[] {
  const pool: (() => ShapeSpec)[] = [
    ...SHAPES.map((shape) => () => ({ label: shape, curve: (er: Rng) => curveOf(shape, er) })),
    ...HOLD_OUT_AMONG.filter((f) => f !== HELD_OUT).map((f) => () => shapeOf(f, r)),
  ];
  const count = r.next() < 0.5 ? 2 : 3;
  return Array.from({ length: count }, () => (pool[Math.floor(r.next() * pool.length)] as () => ShapeSpec)());
}
