/** An error whose `name` is its own class's (`StoreError`, `RateLimitedError`), as logs and `instanceof`-free checks read it. */
export class NamedError extends Error {
  constructor(message: string, options?: { cause?: unknown }) {
    super(message, options?.cause === undefined ? undefined : { cause: options.cause });
    this.name = new.target.name;
  }
}
