import type { webApi } from '@slack/bolt';
import type { Logger } from '../../../logger.js';
import type { PromoStepRestriction } from '../../../render/home-view.js';
import { type Clock, every, type Repeating } from '../../../time/clock.js';
import type { PromoEditors } from '../../deps/promo-editors.js';
import { slackErrorCode } from '../../replies/slack-errors.js';
import { promoQuantityStep } from './promo-quantity-step.js';

const METHOD = 'functions.distributions.permissions.set';

export interface PromoStepPermissionsOptions {
  editors: PromoEditors;
  logger: Logger;
  /** How often the editors are read again (their user groups' members). @default 5 minutes */
  refreshMs?: number | undefined;
  /** Aborted at shutdown: the refreshes stop. */
  signal: AbortSignal;
  /** Whose timer runs the refreshes. */
  clock: Clock;
}

/** Who may add the step to a workflow, as `functions.distributions.permissions.set` takes it. */
type Distribution = { permission_type: 'named_entities'; user_ids: string } | { permission_type: 'app_collaborators' };

/**
 * `functions.distributions.permissions.set`'s arguments as docs.slack.dev gives them (@slack/web-api
 * has no type for this method): the step named by its callback id *and* the app's id.
 */
export type FunctionsDistributionsPermissionsSetArguments = Distribution & {
  function_callback_id: string;
  function_app_id: string;
};

/**
 * Keeps "Set promo quantity" offered in Workflow Builder to the promo editors only: at start, and
 * whenever the editors (PROMO_EDITORS' users and its user groups' members) are not the ones Slack
 * last took, it sets the step's distribution to them. With no editors at all it names the app's
 * collaborators instead: Slack takes no empty `named_entities` list, and `everyone` would open it.
 * A refusal is logged once per error, kept for App Home and tried again at the next refresh (an
 * admin may fix its cause); the step's own check of `run_by` at each run stays either way.
 */
export class PromoStepPermissions {
  readonly #editors: PromoEditors;
  readonly #logger: Logger;
  readonly #refreshMs: number;
  readonly #signal: AbortSignal;
  /** The distribution Slack last took, as compared. */
  #applied: string | undefined;
  #problem: PromoStepRestriction | undefined;
  #editorIds = new Set<string>();
  readonly #clock: Clock;
  #running: Promise<void> | undefined;
  #timer: Repeating | undefined;
  /** The app the step belongs to: its id when `auth.test` gave one, else found from the bot's (`bots.info`). */
  #app: { appId?: string | undefined; botId?: string | undefined } = {};

  constructor(options: PromoStepPermissionsOptions) {
    const refreshMs = options.refreshMs ?? 5 * 60_000;
    if (!(Number.isFinite(refreshMs) && refreshMs > 0)) {
      throw new RangeError(`The promo step's refresh needs a positive number of milliseconds (got ${refreshMs})`);
    }
    this.#editors = options.editors;
    this.#logger = options.logger.child({ step: promoQuantityStep.callbackId });
    this.#refreshMs = refreshMs;
    this.#signal = options.signal;
    this.#clock = options.clock;
  }

  /** Which app the step is: as Slack named the bot at start (`auth.test`). */
  forApp(app: { appId?: string | undefined; botId?: string | undefined }): void {
    this.#app = { ...app };
  }

  /** The app's id, asked of Slack (`bots.info`, users:read) only if `auth.test` did not give it. */
  async #appId(client: webApi.WebClient): Promise<string | undefined> {
    if (this.#app.appId || !this.#app.botId) return this.#app.appId;
    const answer = await client.bots.info({ bot: this.#app.botId }).catch(() => undefined);
    this.#app.appId = answer?.bot?.app_id || undefined;
    return this.#app.appId;
  }

  /** Restricts the step now, then checks the editors every `refreshMs` until the signal aborts. */
  start(client: webApi.WebClient): void {
    if (this.#timer || this.#signal.aborted) return;
    void this.refresh(client);
    const timer = every(this.#clock, this.#refreshMs, () => void this.refresh(client));
    this.#timer = timer;
    this.#signal.addEventListener('abort', () => timer.stop(), { once: true });
  }

  /** One pass: reads the editors and, if Slack has not taken them yet, sets the distribution. Never rejects. */
  refresh(client: webApi.WebClient): Promise<void> {
    this.#running ??= this.#refresh(client).finally(() => {
      this.#running = undefined;
    });
    return this.#running;
  }

  /**
   * Why the last attempt failed, while Slack has not taken the editors; told only to an editor
   * (as last read, so App Home asks Slack nothing).
   */
  problemFor(userId: string): PromoStepRestriction | undefined {
    return this.#editorIds.has(userId) ? this.#problem : undefined;
  }

  async #refresh(client: webApi.WebClient): Promise<void> {
    const ids = await this.#editors.everyone(client);
    this.#editorIds = new Set(ids);
    const distribution: Distribution =
      ids.length > 0
        ? { permission_type: 'named_entities', user_ids: ids.join(',') }
        : { permission_type: 'app_collaborators' };
    const key = JSON.stringify(distribution);
    if (key === this.#applied || this.#signal.aborted) return;
    try {
      const appId = await this.#appId(client);
      // Slack identifies a step by its callback id and its app's id: without the app, nothing is sent.
      if (!appId) throw new AppUnknown();
      const args: FunctionsDistributionsPermissionsSetArguments = {
        function_callback_id: promoQuantityStep.callbackId,
        function_app_id: appId,
        ...distribution,
      };
      await client.apiCall(METHOD, args);
    } catch (error) {
      const failure = { ...describeFailure(error), retryEveryMs: this.#refreshMs };
      // Once per cause: the same refusal at every refresh says nothing new.
      if (failure.error !== this.#problem?.error) {
        this.#logger.warn('Could not restrict the Set promo quantity step to the promo editors in Workflow Builder', {
          method: METHOD,
          error: failure.error,
          reached: failure.reached,
          retryEveryMs: this.#refreshMs,
        });
      }
      this.#problem = failure;
      return;
    }
    this.#applied = key;
    this.#problem = undefined;
    if (distribution.permission_type === 'named_entities') {
      this.#logger.info('Set promo quantity is restricted to the promo editors in Workflow Builder', {
        editors: ids.length,
      });
    } else {
      this.#logger.warn(
        'PROMO_EDITORS names nobody (or only empty user groups): Set promo quantity is offered to the app’s collaborators only, and refuses every run',
      );
    }
  }
}

/** Slack named no app for the bot (`auth.test`, then `bots.info`): the step cannot be named to Slack. */
class AppUnknown extends Error {
  readonly code = 'app_id_unknown';
}

/** A failed Web API call's code, without anything else of the error (it may carry the request). */
function describeFailure(error: unknown): { error: string; reached: boolean } {
  if (error instanceof AppUnknown) return { error: error.code, reached: true };
  const platform = slackErrorCode(error);
  if (platform) return { error: platform, reached: true };
  const { code, statusCode, original } = (error ?? {}) as { code?: unknown; statusCode?: unknown; original?: unknown };
  if (typeof statusCode === 'number') return { error: `http_${statusCode}`, reached: false };
  const cause = (original as { cause?: { code?: unknown } } | undefined)?.cause?.code;
  const own = (original as { code?: unknown } | undefined)?.code;
  const transport = [cause, own, code].find((each): each is string => typeof each === 'string');
  return { error: transport ?? 'no_answer', reached: false };
}
