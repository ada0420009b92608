import { InvalidRequestError, NotFoundError, UnauthorizedError } from './errors.js';
import { errorBodySchema } from './schemas.js';

/** The server's own words for an error, trimmed; never more than a line. */
function serverMessage(body: unknown): string | undefined {
  const parsed = errorBodySchema.safeParse(body);
  const text = parsed.success ? (parsed.data.message ?? parsed.data.error) : undefined;
  const line = text?.replace(/\s+/g, ' ').trim();
  if (!line) return undefined;
  return line.length > 300 ? `${line.slice(0, 297)}...` : line;
}

/** `: <the server's words>` to append to a message, or nothing when it said none. */
export function serverSays(body: unknown): string {
  const said = serverMessage(body);
  return said ? `: ${said}` : '';
}

/** A 4xx other than a 429 as the typed error it stands for, with the server's words and never the key. */
export function clientError(where: string, status: number, body: unknown): Error {
  const suffix = serverSays(body);
  const options = { status };
  switch (status) {
    case 401:
    case 403:
      return new UnauthorizedError(`The service rejected the API key (${status})${suffix}`, options);
    case 404:
      return new NotFoundError(`${where} was not found (404)${suffix}`, options);
    default:
      return new InvalidRequestError(`The service refused ${where} (${status})${suffix}`, options);
  }
}
