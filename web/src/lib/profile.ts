import { apiFetch, type ApiOptions, type User } from '../api';

/**
 * `apiFetch` for the write methods PATCH and PUT, with the same errors (ApiError with the server's
 * status, code and message; status 0 when the network fails). `ApiOptions.method` in api.ts lists
 * GET and POST only, while `apiFetch` hands `method` to fetch unchanged; this is the one place that
 * widens it, so the cast goes away when api.ts lists PATCH and PUT.
 */
export function apiWrite<T>(method: 'PATCH' | 'PUT', path: string, options: Omit<ApiOptions, 'method'>): Promise<T> {
  return apiFetch<T>(path, { ...options, method });
}

/**
 * Saves the signed-in user's full name: `PATCH /auth/user {"name"}` (docs/auth.md). Resolves to
 * the updated user (the shape of `GET /auth/user`). The name is sent as typed: auth trims it,
 * decides what is valid and answers 400 `invalid_argument` ("Name must be 1–100 characters")
 * otherwise. @throws ApiError
 */
export function saveProfileName(token: string, name: string, signal?: AbortSignal): Promise<User> {
  return apiWrite<User>('PATCH', '/auth/user', { token, body: { name }, ...(signal ? { signal } : {}) });
}
