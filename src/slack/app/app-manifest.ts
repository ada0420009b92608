import { isMap, isSeq, parseDocument } from 'yaml';

export interface ManifestOptions {
  /** The event page's host (EVENT_PAGE_URL): listed for unfurls, with the scopes and event they need. */
  unfurlHost?: string | undefined;
  /**
   * Event links unfold as Work Objects (UNFURL_STYLE=work-object): with the unfurl host, the
   * `entity_details_requested` event their flexpanes send (no scope). Work Object previews
   * themselves are turned on in the app's settings: Slack's published manifest schema has no field
   * for them (docs/install-in-slack.md).
   */
  workObjects?: boolean | undefined;
}

/** Adds `value` to the list at `path` unless it is there (comments and order kept). */
function addTo(doc: ReturnType<typeof parseDocument>, path: string[], value: string): void {
  const list = doc.getIn(path, true);
  if (isSeq(list)) {
    if (!list.items.some((item) => String((item as { value?: unknown }).value ?? item) === value)) list.add(value);
    return;
  }
  doc.setIn(path, doc.createNode([value]));
}

/**
 * The Slack app manifest for this deployment: the committed `manifest.yml`, plus what the
 * configuration turns on. With EVENT_PAGE_URL, its host under `features.unfurl_domains`, the
 * `links:read` and `links:write` scopes and the `link_shared` event (and `entity_details_requested`
 * for Work Objects). Wherever steps are declared (`functions`), the `function_executed` event their
 * runs arrive as.
 */
export function appManifest(template: string, options: ManifestOptions): string {
  const doc = parseDocument(template);
  if (doc.errors.length > 0) throw new Error(`manifest.yml does not parse: ${doc.errors[0]?.message}`);
  if (!isMap(doc.contents)) throw new Error('manifest.yml is not a map');
  const functions = doc.get('functions', true);
  if (isMap(functions) && functions.items.length > 0)
    addTo(doc, ['settings', 'event_subscriptions', 'bot_events'], 'function_executed');
  if (options.unfurlHost) {
    addTo(doc, ['features', 'unfurl_domains'], options.unfurlHost);
    addTo(doc, ['oauth_config', 'scopes', 'bot'], 'links:read');
    addTo(doc, ['oauth_config', 'scopes', 'bot'], 'links:write');
    addTo(doc, ['settings', 'event_subscriptions', 'bot_events'], 'link_shared');
    if (options.workObjects) addTo(doc, ['settings', 'event_subscriptions', 'bot_events'], 'entity_details_requested');
  }
  return doc.toString({ lineWidth: 0 });
}
