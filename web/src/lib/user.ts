import { PLANS, isPlanId } from '@tradewind/contracts/plans';

/** What the header and dashboard call the user: the name, else the part of the e-mail before `@`, else "User". */
export function displayName(user: { name?: string | null; email?: string | null } | null | undefined): string {
  const name = user?.name?.trim();
  if (name) return name;
  const prefix = user?.email?.split('@')[0]?.trim();
  return prefix ? prefix : 'User';
}

/** "Starter plan", "Plus plan", "Pro plan" (unknown ids read as Starter, the plan every account has). */
export function planLabel(plan: string | null | undefined): string {
  return `${(isPlanId(plan) ? PLANS[plan] : PLANS.starter).name} plan`;
}
