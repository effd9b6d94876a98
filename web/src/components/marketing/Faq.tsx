import { useId, useState } from 'react';
import './faq.css';

/** One question and its plain-text answer (the same text goes into the FAQPage structured data). */
export interface FaqItem {
  question: string;
  answer: string;
}

/** schema.org FAQPage for `items` (pass to `<Seo jsonLd>`). */
export function faqJsonLd(items: readonly FaqItem[]): object {
  return {
    '@context': 'https://schema.org',
    '@type': 'FAQPage',
    mainEntity: items.map((item) => ({
      '@type': 'Question',
      name: item.question,
      acceptedAnswer: { '@type': 'Answer', text: item.answer },
    })),
  };
}

/**
 * Questions as disclosures: each question is a button (`aria-expanded`, `aria-controls`) inside a
 * heading of level `headingLevel`, showing or hiding its answer. All start closed.
 */
export function Faq({ items, headingLevel = 3 }: { items: readonly FaqItem[]; headingLevel?: 2 | 3 | 4 }) {
  const [open, setOpen] = useState<ReadonlySet<number>>(new Set());
  const base = useId();
  const Heading = `h${headingLevel}` as 'h2' | 'h3' | 'h4';
  return (
    <div className="faq">
      {items.map((item, i) => {
        const expanded = open.has(i);
        const panelId = `${base}-answer-${i}`;
        return (
          <div key={item.question} className="faq-item">
            <Heading className="faq-question">
              <button
                type="button"
                aria-expanded={expanded}
                aria-controls={panelId}
                onClick={() =>
                  setOpen((prev) => {
                    const next = new Set(prev);
                    if (next.has(i)) next.delete(i);
                    else next.add(i);
                    return next;
                  })
                }
              >
                <span>{item.question}</span>
                <span className="faq-icon" aria-hidden="true">
                  {expanded ? '−' : '+'}
                </span>
              </button>
            </Heading>
            <div id={panelId} className="faq-answer" hidden={!expanded}>
              <p>{item.answer}</p>
            </div>
          </div>
        );
      })}
    </div>
  );
}
