/**
 * One of the page's own ES modules (src/sandbox/page/), loaded as the browser loads it: plain
 * JavaScript, so the path is built at run time and the caller states the shape it expects.
 */
export async function pageModule<T>(file: string): Promise<T> {
  return (await import(new URL(`../../src/sandbox/page/${file}`, import.meta.url).href)) as T;
}
