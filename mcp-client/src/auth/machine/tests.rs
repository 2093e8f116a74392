//! Tests of the token request forms.
