// What bin/tarsier.js runs: `tarsier verify` from the one-file bundle of
// what it loads (verify.bundle.js, made by `npm run build`: some 15 ms less
// CPU time than loading its twenty modules, in every verification) when the
// bundle is up to date; everything else, and `verify` without the bundle,
// through main.ts.
import { statSync } from 'node:fs';
import { fileURLToPath } from 'node:url';

/** The bundle of `verify`, when it is not older than its entry module (a `tsc` without the bundling step leaves it stale). */
export function verifyBundle(): URL | undefined {
  const bundle = new URL('./verify.bundle.js', import.meta.url);
  try {
    return statSync(fileURLToPath(bundle)).mtimeMs >= statSync(fileURLToPath(new URL('./verify-main.js', import.meta.url))).mtimeMs ? bundle : undefined;
  } catch {
    return undefined;
  }
}

export async function main(argv: string[]): Promise<number> {
  const bundle = argv[0] === 'verify' ? verifyBundle() : undefined;
  const m = (await import(bundle ? bundle.href : './main.js')) as { main: (argv: string[]) => Promise<number> };
  return m.main(argv);
}
