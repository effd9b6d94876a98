import { PLANS, isPlanId } from '@tradewind/lib/plans';

/** What the header and dashboard call the user: the name, else the part of the e-mail before `@`, else "User". */
export function displayName(user: { name?: string | null; email?: string | null } | null | undefined): string {
  const name = user?.name?.trim();
  if (name) return name;
  const prefix = user?.email?.split('@')[0]?.trim();
  return prefix ? prefix : 'User';
}

/**
 * Up to two initials for the avatar fallback: first letters of the first and last words of the
 * display name ("Ada Lovelace" → "AL", "ada" → "A", "" → "U" for "User").
 */
export function initials(user: { name?: string | null; email?: string | null } | null | undefined): string {
  const words = displayName(user).split(/[\s._-]+/u).filter(Boolean);
  const first = words[0] ?? 'User';
  const last = words.length > 1 ? words[words.length - 1]! : '';
  return (Array.from(first)[0]! + (last ? Array.from(last)[0]! : '')).toUpperCase();
}

/** "Starter plan", "Plus plan", "Pro plan" (unknown ids read as Starter, the plan every account has). */
export function planLabel(plan: string | null | undefined): string {
  return `${(isPlanId(plan) ? PLANS[plan] : PLANS.starter).name} plan`;
}
