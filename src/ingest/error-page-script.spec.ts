import { DIALOG_TEXTS, dialogTexts, errorPageScript, scriptSafeJson } from './error-page-script';
import { runInNewContext } from 'node:vm';

describe('the report dialog script', () => {
  it('takes the texts the query gives and keeps the defaults of the others', () => {
    expect(dialogTexts({ title: 'Oops', labelSubmit: '', other: 'x', subtitle: ['a'] })).toEqual({
      ...DIALOG_TEXTS,
      title: 'Oops',
    });
    expect(dialogTexts({ title: 'x'.repeat(2000) }).title).toHaveLength(500);
  });

  it('writes JSON that no text can break out of', () => {
    const hostile = '</script><!--\u2028\u2029"\\';
    const json = scriptSafeJson({ text: hostile });
    expect(json).not.toMatch(/[<>&\u2028\u2029]/);
    expect(JSON.parse(json)).toEqual({ text: hostile });
  });

  it('is a script that parses, whatever the texts', () => {
    const script = errorPageScript({
      endpoint: 'http://x/api/embed/error-page/?dsn=a',
      texts: { ...DIALOG_TEXTS, title: "'); alert(1); ('" },
      name: '`${x}`',
      email: '</script>',
    });
    expect(() => new Function(script)).not.toThrow();
    expect(script).not.toContain('</script>');
    // Without a document it stops at its first use of one: nothing ran from the texts.
    expect(() => runInNewContext(script, {})).toThrow(/document/);
  });
});
