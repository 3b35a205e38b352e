//! Every sentence about sites: what leaving a site out means, and the refusals of a choice.

use super::findings::Severity;
use super::sites::SiteKind;
use crate::honesty::Tool;

pub const LEFT_OUT_REFERENCE: &str = "sites.left_out_reference";
pub const LEFT_OUT_CALL: &str = "sites.left_out_call";
pub const LEFT_OUT_IMPORT: &str = "sites.left_out_import";
pub const LEFT_OUT_OCCURRENCE: &str = "sites.left_out_occurrence";
pub const LEFT_OUT_EDIT: &str = "sites.left_out_edit";

/// The finding at a site left out: severity, message and kind. `old` is the text the site would
/// have replaced (a reference's old name); `removes` whether the plan removes what a call left
/// out would still call (an inline's definition).
pub fn left_out(
    tool: Tool,
    kind: SiteKind,
    certain: bool,
    removes: bool,
    old: &str,
) -> (Severity, String, &'static str) {
    let breaks = if certain {
        Severity::Error
    } else {
        Severity::Warning
    };
    match kind {
        SiteKind::Reference => (
            breaks,
            format!(
                "left out: this reference keeps the old name `{old}`, which no longer exists after the rename"
            ),
            LEFT_OUT_REFERENCE,
        ),
        SiteKind::Call if tool == Tool::InlineFunction && !removes => (
            Severity::Info,
            "left out: this call is not inlined; it still calls the function, which this inline keeps".to_string(),
            LEFT_OUT_CALL,
        ),
        SiteKind::Call if tool == Tool::InlineFunction => (
            breaks,
            "left out: this call is not inlined, and it now calls a function that no longer exists (the inline removes its definition)".to_string(),
            LEFT_OUT_CALL,
        ),
        SiteKind::Call => (
            breaks,
            "left out: this call keeps the old arguments, which no longer match the new parameter list".to_string(),
            LEFT_OUT_CALL,
        ),
        SiteKind::Import => (
            breaks,
            "left out: this import keeps the old path, where the moved item no longer is".to_string(),
            LEFT_OUT_IMPORT,
        ),
        SiteKind::Occurrence => (
            Severity::Info,
            "left out: this occurrence keeps the expression as it is (it still computes the same value; nothing breaks)".to_string(),
            LEFT_OUT_OCCURRENCE,
        ),
        SiteKind::Edit => (
            Severity::Warning,
            format!(
                "left out: this edit of the backend's {} is not written; what it changed stays as it was, which may no longer fit the rest of the result",
                tool.label()
            ),
            LEFT_OUT_EDIT,
        ),
    }
}

pub fn unknown_site(id: &str) -> String {
    format!("unknown site id `{id}`; ids come from data.sites of a preview of this same request")
}

pub fn both(id: &str) -> String {
    format!("site `{id}` is in both exclude_sites and include_sites; name it in one of them")
}

/// A site id a recent preview knew, in a file that changed since.
pub fn stale_site(id: &str, file: &str) -> String {
    format!(
        "site `{id}` of {file} is not in this plan: the file changed since the preview; preview again and choose among the new data.sites"
    )
}
