import MarkdownIt from 'markdown-it';
import sanitizeHtml from 'sanitize-html';

/** HTML in a comment is shown as text, links only to the web and mail, and long words wrap in the page. */
const markdown = new MarkdownIt({ html: false, linkify: true, breaks: true });

/**
 * What a rendered comment may contain, whatever markdown-it produces: a second, independent line of
 * defence, since the dashboard inserts this HTML as is.
 */
const ALLOWED: sanitizeHtml.IOptions = {
  allowedTags: [
    'p',
    'br',
    'strong',
    'em',
    's',
    'code',
    'pre',
    'blockquote',
    'ul',
    'ol',
    'li',
    'a',
    'h1',
    'h2',
    'h3',
    'h4',
    'h5',
    'h6',
    'hr',
    'table',
    'thead',
    'tbody',
    'tr',
    'th',
    'td',
  ],
  allowedAttributes: { a: ['href', 'title'], ol: ['start'], th: ['style'], td: ['style'] },
  allowedStyles: {
    th: { 'text-align': [/^(left|right|center)$/] },
    td: { 'text-align': [/^(left|right|center)$/] },
  },
  allowedSchemes: ['http', 'https', 'mailto'],
  allowProtocolRelative: false,
  transformTags: {
    // Links leave the tracker without telling the other site where from, and cannot script this tab.
    a: sanitizeHtml.simpleTransform('a', { rel: 'noopener noreferrer nofollow', target: '_blank' }),
  },
};

/** A comment's Markdown as HTML safe to insert in the page. */
export function renderComment(body: string): string {
  return sanitizeHtml(markdown.render(body), {
    ...ALLOWED,
    allowedAttributes: { ...ALLOWED.allowedAttributes, a: ['href', 'title', 'rel', 'target'] },
  });
}
