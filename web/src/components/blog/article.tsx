/**
 * Building blocks of the blog's article bodies (web/src/content/blog/<slug>.tsx): sections whose
 * ids feed the table of contents, code samples and notes. Article modules declare their sections
 * once with {@link defineSections}; the body renders `<Section s={S.x}>` and the article page
 * renders the table of contents from the same list, so the two cannot drift apart.
 */
import type { ReactNode } from 'react';

/** One h2 section of an article: `id` is the anchor (`#id`), `title` the heading text. */
export interface ArticleSection {
  id: string;
  title: string;
}

/** FAQ entry of an article: shown in the FAQ section and in the FAQPage structured data. */
export interface FaqEntry {
  question: string;
  answer: string;
}

/**
 * Turns `{key: title}` into `{key: {id, title}}` with `id` = the key in kebab case
 * (`firstMessage` → `first-message`). Keys keep their declaration order for {@link sectionList}.
 */
export function defineSections<K extends string>(titles: Record<K, string>): Record<K, ArticleSection> {
  const out = {} as Record<K, ArticleSection>;
  for (const key of Object.keys(titles) as K[]) {
    out[key] = { id: key.replace(/[A-Z]/g, (c) => `-${c.toLowerCase()}`), title: titles[key] };
  }
  return out;
}

/** The sections of {@link defineSections} as an ordered list (the table of contents). */
export function sectionList<K extends string>(sections: Record<K, ArticleSection>): ArticleSection[] {
  return Object.values(sections);
}

/** An h2 section with the anchor the table of contents links to. */
export function Section({ s, children }: { s: ArticleSection; children: ReactNode }) {
  return (
    <section aria-labelledby={s.id} className="blog-section">
      <h2 id={s.id}>{s.title}</h2>
      {children}
    </section>
  );
}

/**
 * A code sample. The block is keyboard-focusable (it may scroll horizontally) and labelled with
 * `label`, e.g. "client.mjs". Leading and trailing blank lines of `code` are dropped.
 */
export function Code({ code, label, lang }: { code: string; label: string; lang?: string }) {
  return (
    <figure className="blog-code">
      <figcaption className="blog-code-label">{label}</figcaption>
      <pre tabIndex={0} aria-label={`Code sample: ${label}`} data-lang={lang}>
        <code>{code.replace(/^\s*\n/, '').replace(/\s+$/, '')}</code>
      </pre>
    </figure>
  );
}

/** A highlighted note inside an article. */
export function Note({ children, title }: { children: ReactNode; title?: string }) {
  return (
    <aside className="blog-note">
      {title ? <p className="blog-note-title">{title}</p> : null}
      {children}
    </aside>
  );
}
