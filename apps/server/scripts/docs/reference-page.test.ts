import { describe, expect, it } from 'vitest';
import { RENDERER_CONFIGURATION, renderReferencePage } from './reference-page.ts';

const OPTIONS = {
  scriptUrl: 'assets/api-reference.js',
  documentUrl: 'openapi.json',
  title: 'Plant Store API reference',
};

/** The text of the page's `<script id="api-reference">` block. */
function embedded(html: string): string {
  const match =
    /<script id="api-reference" type="application\/json"[^>]*>([\s\S]*?)<\/script>/.exec(html);
  if (!match?.[1]) throw new Error('no embedded document');
  return match[1];
}

describe('renderReferencePage', () => {
  it('embeds the document as inert JSON that reads back exactly', () => {
    const document = { openapi: '3.1.0', info: { title: 'T', version: '1.0.0' }, paths: {} };
    const html = renderReferencePage({ ...OPTIONS, document });
    expect(JSON.parse(embedded(html))).toEqual(document);
  });

  it('leaves out numbers JSON.parse would round (the int64 bounds), keeps safe bigints as numbers', () => {
    // The renderer parses the block with JSON.parse: ±2^63 would show as ±9223372036854776000.
    const document = { schema: { minimum: -(2n ** 63n), maximum: 2n ** 63n - 1n, example: 10n } };
    const block = embedded(renderReferencePage({ ...OPTIONS, document }));
    expect(block).toBe('{"schema":{"example":10}}');
  });

  it('cannot be broken out of by a document holding </script>, <!-- or &', () => {
    const description = '</script><script>alert(1)</script> <!-- & <token>';
    const html = renderReferencePage({ ...OPTIONS, document: { info: { description } } });
    const block = embedded(html);
    expect(block).not.toMatch(/[<>&]/);
    expect(JSON.parse(block)).toEqual({ info: { description } });
    expect(html.match(/<script/g)).toHaveLength(2);
  });

  it('has no inline script: one script file, and the settings as an attribute', () => {
    const html = renderReferencePage({ ...OPTIONS, document: {} });
    expect(html).toContain('<script src="assets/api-reference.js"></script>');
    const attribute = /data-configuration="([^"]*)"/.exec(html)?.[1] ?? '';
    expect(JSON.parse(attribute.replaceAll('&quot;', '"'))).toEqual(RENDERER_CONFIGURATION);
    expect(html).not.toMatch(/<script>|\son\w+=|\sstyle=/);
  });

  it('turns off every renderer feature that would reach another host', () => {
    expect(RENDERER_CONFIGURATION).toMatchObject({
      withDefaultFonts: false,
      telemetry: false,
      agent: { disabled: true },
    });
  });

  it('escapes the title and the links', () => {
    const html = renderReferencePage({
      ...OPTIONS,
      title: 'A <b>&',
      documentUrl: 'a"b',
      document: {},
    });
    expect(html).toContain('<title>A &lt;b&gt;&amp;</title>');
    expect(html).toContain('href="a&quot;b"');
  });
});
