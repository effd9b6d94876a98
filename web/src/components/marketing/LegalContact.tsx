import { Link } from 'react-router';
import { SITE } from '../../site';

/**
 * How to reach the operator about the policies: the configured support address
 * (`SITE.supportEmail`), else the community page. Never an invented address.
 */
export function LegalContact() {
  return SITE.supportEmail ? <a href={`mailto:${SITE.supportEmail}`}>{SITE.supportEmail}</a> : <Link to="/community">our community and support page</Link>;
}
