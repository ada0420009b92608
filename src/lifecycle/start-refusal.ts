import { errorCodes } from '../error-chain.js';
import { NamedError } from '../named-error.js';
/**
 * The start cannot go on for a reason the operator mends (configuration or environment, not a
 * bug): its message is one line naming the variable, what is wrong and what to do. `main.ts`
 * prints it alone and exits 2, as it does for an invalid configuration.
 */
export class StartRefusal extends NamedError {
  readonly code = 'start_refused';
}

export function isStartRefusal(value: unknown): value is StartRefusal {
  return value instanceof StartRefusal;
}

/** The first system error code (`ECONNREFUSED`, `ENOTFOUND`, `EADDRINUSE`) in `error`'s chain. */
export function systemCode(error: unknown): string | undefined {
  for (const code of errorCodes(error)) if (/^E[A-Z]+$/.test(code)) return code;
  return undefined;
}

/**
 * A listen that failed for a reason of the machine, in words naming `variable` (`PORT`, or
 * `HEALTH_PORT` in Socket Mode); undefined for any other error.
 */
export function listenRefusal(
  error: unknown,
  variable: 'PORT' | 'HEALTH_PORT',
  port: number,
  host: string | undefined,
): StartRefusal | undefined {
  const where = `port ${port}${host ? ` on ${host}` : ''}`;
  switch (systemCode(error)) {
    case 'EADDRINUSE':
      return new StartRefusal(
        `${variable}: ${where} is already in use (EADDRINUSE); stop what listens there or set ${variable} to a free port`,
        { cause: error },
      );
    case 'EACCES':
      return new StartRefusal(
        `${variable}: not allowed to listen on ${where} (EACCES); ports below 1024 need privileges, so set ${variable} to 1024 or above`,
        { cause: error },
      );
    case 'EADDRNOTAVAIL':
      return new StartRefusal(
        `HOST: ${host ?? 'the address'} is not an address of this machine (EADDRNOTAVAIL); set HOST to one of its addresses, or leave it empty for all`,
        { cause: error },
      );
    case 'ENOTFOUND':
    case 'EAI_AGAIN':
      return new StartRefusal(`HOST: "${host ?? ''}" is not a name this machine can resolve; set HOST to an address`, {
        cause: error,
      });
    default:
      return undefined;
  }
}
