import type { SchemaRow } from '../../lib/schema';

/** Props of {@link SchemaTable}. */
export interface SchemaTableProps {
  /** Rows from `schemaRows()` (web/src/lib/schema.ts). */
  rows: readonly SchemaRow[];
  /** Accessible caption of the table, e.g. "Fields of basic.pumpfun messages". */
  caption: string;
}

/** A JSON Schema's properties as a table: field path, type, required, and everything the schema says about it. */
export function SchemaTable({ rows, caption }: SchemaTableProps) {
  return (
    <div className="table-wrap docs-schema-wrap">
      <table className="docs-schema-table">
        <caption className="sr-only">{caption}</caption>
        <thead>
          <tr>
            <th scope="col">Field</th>
            <th scope="col">Type</th>
            <th scope="col">Required</th>
            <th scope="col">Description</th>
          </tr>
        </thead>
        <tbody>
          {rows.map((row) => (
            <tr key={row.path} data-field={row.path}>
              <th scope="row" className="docs-schema-field" style={{ paddingLeft: `${12 + row.depth * 16}px` }}>
                <code>{row.path}</code>
              </th>
              <td>
                <code className="docs-schema-type">{row.type}</code>
              </td>
              <td>{row.required ? <span className="badge">always</span> : row.requiredWhen.length > 0 ? 'when…' : <span className="muted">no</span>}</td>
              <td className="docs-schema-desc">
                {row.description && <p>{row.description}</p>}
                {row.const !== undefined && (
                  <p>
                    Always <code>{row.const}</code>.
                  </p>
                )}
                {row.enum && (
                  <p>
                    One of:{' '}
                    {row.enum.map((v, i) => (
                      <span key={v}>
                        {i > 0 && ', '}
                        <code>{v}</code>
                      </span>
                    ))}
                  </p>
                )}
                {row.format && (
                  <p>
                    Format: <code>{row.format}</code>
                  </p>
                )}
                {row.pattern && (
                  <p>
                    Pattern: <code className="docs-pattern">{row.pattern}</code>
                  </p>
                )}
                {row.constraints.length > 0 && <p>Range: {row.constraints.join(', ')}</p>}
                {row.requiredWhen.length > 0 && <p>Required when {row.requiredWhen.join('; ')}.</p>}
                {row.alternatives.map((text) => (
                  <p key={text}>Alternatives: {text}.</p>
                ))}
              </td>
            </tr>
          ))}
        </tbody>
      </table>
    </div>
  );
}
