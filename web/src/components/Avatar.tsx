import { useState } from 'react';

/** What the avatar reads of a user. */
export interface AvatarUser {
  name?: string | null;
  email?: string | null;
  avatar_url?: string | null;
}

/**
 * The avatar's fallback text (product spec, dashboard shell): the first letters of up to two words
 * of the name ("Ada Lovelace" → "AL", "Jean Claude van Damme" → "JC", "ada" → "A"), else the first
 * two letters of the e-mail address ("grace.hopper@example.com" → "GR"; never the "@"), else "U". Upper case;
 * letters are whole code points, so "élodie" → "É".
 */
export function avatarInitials(user: Pick<AvatarUser, 'name' | 'email'> | null | undefined): string {
  const words = (user?.name ?? '').trim().split(/\s+/u).filter(Boolean);
  if (words.length > 0)
    return words
      .slice(0, 2)
      .map((w) => Array.from(w)[0]!)
      .join('')
      .toUpperCase();
  // "@" is not a letter: a one-letter local part ("q@example.com") gives one initial.
  const local = (user?.email ?? '').trim().split('@')[0] ?? '';
  if (local) return Array.from(local).slice(0, 2).join('').toUpperCase();
  return 'U';
}

/**
 * The user's picture, or {@link avatarInitials} when there is none or it fails to load (a new
 * `avatar_url` is tried again). Decorative: the name is shown beside it.
 */
export function Avatar({ user, size = 34 }: { user: AvatarUser | null; size?: number }) {
  const [failedUrl, setFailedUrl] = useState<string | null>(null);
  const url = user?.avatar_url;
  return (
    <span className="avatar" style={{ width: size, height: size }} aria-hidden="true" data-testid="avatar">
      {url && failedUrl !== url ? <img src={url} alt="" referrerPolicy="no-referrer" onError={() => setFailedUrl(url)} /> : avatarInitials(user)}
    </span>
  );
}
