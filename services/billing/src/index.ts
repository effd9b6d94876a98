/** Public surface of @tradewind/billing for tests and the start script. */
export { createApp, type BillingDeps } from './app.js';
export { loadBillingConfig, BillingConfigSchema, type BillingConfig } from './config.js';
export { BILLING_SCHEMA, billingMigrations } from './db/migrations.js';
export type { BillingDatabase } from './db/schema.js';
export { USER_CREATED_CONSUMER } from './events/user-created.js';
export { checkoutSuccessUrl, HANDLED_EVENT_TYPES, type SubscriptionJson } from './service.js';
export { priceLookupKey, expectedPrice, paidPlans, type PaidPeriod, type PaidTier } from './domain/prices.js';
