import { describe, expect, it } from 'vitest';
import { displayName, initials, planLabel } from '../src/lib/user';

describe('displayName', () => {
  it('uses the name, else the e-mail prefix, else "User"', () => {
    expect(displayName({ name: '  Ada Lovelace ', email: 'ada@example.com' })).toBe('Ada Lovelace');
    expect(displayName({ name: '', email: 'grace.hopper@example.com' })).toBe('grace.hopper');
    expect(displayName({ name: null, email: null })).toBe('User');
    expect(displayName(null)).toBe('User');
  });
});

describe('initials', () => {
  it('takes the first letters of the first and last words', () => {
    expect(initials({ name: 'Ada Lovelace' })).toBe('AL');
    expect(initials({ name: 'ada' })).toBe('A');
    expect(initials({ name: 'Jean Claude van Damme' })).toBe('JD');
    expect(initials({ name: null, email: 'grace.hopper@example.com' })).toBe('GH');
    expect(initials({ name: null, email: 'linus_t@example.com' })).toBe('LT');
    expect(initials(null)).toBe('U');
    expect(initials({ name: 'élodie durand' })).toBe('ÉD');
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
