/**
 * A count's noun with its plural in brackets ("4 event(s)", "2 watch(es)", "1 entr(ies)"), which a
 * person reads as a form left unfinished; `plural` in src/render/plural.ts says it in words.
 * "http(s)" is no plural (it names a scheme), nor is a method called on `s` ("JSON.stringify(s)").
 */
const MAYBE_PLURAL = /(?<![\w.])\w+\((?:s|es|ies)\)/g;

/** Every "(s)"-style plural in `text`. */
export function maybePlurals(text: string): string[] {
  return (text.match(MAYBE_PLURAL) ?? []).filter((word) => !/^https?\(s\)$/i.test(word));
}
