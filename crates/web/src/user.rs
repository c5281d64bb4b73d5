//! Who a request comes from, as every layer speaks of it: a name and whether it is an admin.
//! How a request proves it is that user (tokens, sessions) is the business of the `auth`
//! module, what the user may see that of `view`; this one sits below both.

/// An authenticated caller.
#[derive(Clone, Debug, PartialEq, Eq)]
pub(crate) struct User {
    /// The user's name (a configured user, a token's, a contest's team).
    pub(crate) name: String,
    /// Whether the user is an admin.
    pub(crate) admin: bool,
}

impl User {
    /// This user as the service's visibility policy names a viewer.
    pub(crate) fn as_viewer(&self) -> ojd_service::Viewer<'_> {
        ojd_service::Viewer::User {
            name: &self.name,
            admin: self.admin,
        }
    }

    /// A request's viewer: `None` is an anonymous one.
    pub(crate) fn viewer(user: Option<&User>) -> ojd_service::Viewer<'_> {
        user.map_or(ojd_service::Viewer::Anonymous, User::as_viewer)
    }
}

/// Whether `name` may name a user (and, with more rules, a problem folder): the service's
/// one rule.
pub(crate) use ojd_service::valid_name;
