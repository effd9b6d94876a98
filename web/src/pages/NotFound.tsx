import { Link } from 'react-router';
import { Seo } from '../seo';

export default function NotFound() {
  return (
    <div className="container section center">
      <Seo title="Page not found" description="This page does not exist on Tradewind." path="/404" noindex />
      <p className="badge">404</p>
      <h1>Page not found</h1>
      <p className="muted">The page you asked for does not exist or has moved.</p>
      <p>
        <Link to="/" className="btn btn-primary">
          Back to the home page
        </Link>{' '}
        <Link to="/blog" className="btn btn-secondary">
          Read the blog
        </Link>
      </p>
    </div>
  );
}
