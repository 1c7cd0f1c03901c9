/**
 * What `import { init } from 'z3-solver'` means in the browser bundle:
 * z3-solver's browser build, told where its Emscripten script lives (the
 * worker that runs the verifier loaded it with importScripts, and the
 * solver's own threads load it again by URL). Needs cross-origin isolation
 * (SharedArrayBuffer): `tarsier serve` sends the COOP/COEP headers.
 */
// The browser entry of the package (CommonJS; esbuild bundles it).
import { init as browserInit } from 'z3-solver/build/browser.js';

export * from 'z3-solver/build/browser.js';

export function init(): ReturnType<typeof browserInit> {
  const base = (globalThis as { location?: { href: string } }).location?.href ?? '';
  const url = (file: string) => new URL(file, base).href;
  return browserInit({ mainScriptUrlOrBlob: url('z3-built.js'), locateFile: (file: string) => url(file) } as never);
}
