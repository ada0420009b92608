// Runs a process (and the processes it starts, through NODE_OPTIONS) as if it were CLOCK_AT, an
// ISO time: `Date` moves by the difference and keeps running. Timers are untouched. For a test
// whose outcome may depend on the time of day; see docs/CONTRIBUTING.md, "The time of day".
const at = Date.parse(process.env.CLOCK_AT ?? '');
if (Number.isNaN(at)) throw new Error(`CLOCK_AT is not an ISO time: ${process.env.CLOCK_AT}`);
const RealDate = Date;
const shift = at - RealDate.now();
class MovedDate extends RealDate {
  constructor(...args) {
    if (args.length === 0) super(RealDate.now() + shift);
    else super(...args);
  }
  static now() {
    return RealDate.now() + shift;
  }
}
globalThis.Date = MovedDate;
