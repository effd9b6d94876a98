import { describe, expect, it } from 'vitest';
import { displayName, planLabel } from '../src/lib/user';

describe('displayName', () => {
  it('uses the name, else the e-mail prefix, else "User"', () => {
    expect(displayName({ name: '  Ada Lovelace ', email: 'ada@example.com' })).toBe('Ada Lovelace');
    expect(displayName({ name: '', email: 'grace.hopper@example.com' })).toBe('grace.hopper');
    expect(displayName({ name: null, email: null })).toBe('User');
    expect(displayName(null)).toBe('User');
  });
});

describe('planLabel', () => {
  it('names the plan from the catalogue; unknown ids read as Starter', () => {
    expect(planLabel('starter')).toBe('Starter plan');
    expect(planLabel('plus')).toBe('Plus plan');
    expect(planLabel('pro')).toBe('Pro plan');
    expect(planLabel('gold')).toBe('Starter plan');
    expect(planLabel(null)).toBe('Starter plan');
  });
});
