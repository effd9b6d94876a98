import { useState } from 'react';
import { initials } from '../lib/user';

/** The user's picture, or their initials when there is none or it fails to load. Decorative: the name is shown beside it. */
export function Avatar({ user, size = 34 }: { user: { name?: string | null; email?: string | null; avatar_url?: string | null } | null; size?: number }) {
  const [failed, setFailed] = useState(false);
  const url = user?.avatar_url;
  return (
    <span className="avatar" style={{ width: size, height: size }} aria-hidden="true" data-testid="avatar">
      {url && !failed ? <img src={url} alt="" referrerPolicy="no-referrer" onError={() => setFailed(true)} /> : initials(user)}
    </span>
  );
}
