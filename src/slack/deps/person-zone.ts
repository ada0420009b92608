import type { webApi } from '@slack/bolt';
import { isValidTimeZone } from '../../time/zoned.js';

/** The person's Slack timezone, or undefined when Slack does not say. */
export async function personZone(client: webApi.WebClient, userId: string): Promise<string | undefined> {
  try {
    const zone = (await client.users.info({ user: userId })).user?.tz;
    return zone && isValidTimeZone(zone) ? zone : undefined;
  } catch {
    return undefined;
  }
}
