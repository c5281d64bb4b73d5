//! Server-rendered HTML: the page [frame](mod@frame), errors as pages ([`error`]) and the
//! [`parts`] pages are made of. Everything goes through maud's templates, which escape every
//! interpolated value; `PreEscaped` is kept for HTML made safe already (a rendered statement).

pub(crate) mod error;
pub(crate) mod frame;
pub(crate) mod parts;

pub(crate) use error::{error_page, need_admin, need_login, PageError};
pub(crate) use frame::{frame, page};
