/** The Tradewind mark (two wind lines). Decorative: the brand name is always beside it. */
export function Logo({ size = 28 }: { size?: number }) {
  return (
    <svg width={size} height={size} viewBox="0 0 32 32" aria-hidden="true" focusable="false">
      <rect width="32" height="32" rx="7" fill="#0e7490" />
      <path d="M6 20c4-6 8-6 12-2s6 4 8-2" fill="none" stroke="#fff" strokeWidth="3" strokeLinecap="round" />
      <path d="M6 13c4-6 8-6 12-2s6 4 8-2" fill="none" stroke="#a5f3fc" strokeWidth="2.5" strokeLinecap="round" />
    </svg>
  );
}
