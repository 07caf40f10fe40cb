//! Hosts checked through emulators: Netlify, Cloudflare Pages, CloudFront, Vercel.
