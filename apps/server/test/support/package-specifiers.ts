import { isBuiltin } from 'node:module';

/** The packages a text imports: static, type-only, side-effect, dynamic and require() forms. */
export function packageSpecifiers(text: string): string[] {
  const pattern =
    /(?:\bfrom\s+|^\s*import\s+|\bimport\s*\(\s*|\brequire(?:\.resolve)?\s*\(\s*)['"]([^'"]+)['"]/gm;
  return [...text.matchAll(pattern)]
    .map((match) => match[1] ?? '')
    .filter((specifier) => !specifier.startsWith('.') && !isBuiltin(specifier));
}

/** The package a specifier names: `koa` of `koa/lib/x`, `@koa/router` of `@koa/router/y`. */
export function packageName(specifier: string): string {
  return specifier
    .split('/')
    .slice(0, specifier.startsWith('@') ? 2 : 1)
    .join('/');
}
