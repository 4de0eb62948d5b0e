//! A lab's recording over HTTP: what it holds, and exports of it (the whole lab's or
//! one robot's, CSV or MCAP) streamed as they are written, within the classroom's
//! export slots (per caller, per lab, per server: `classroom::export::slots`).

use std::collections::HashMap;
use std::sync::Arc;

use axum::Json;
use axum::body::Body;
use axum::extract::{Path, Query, State};
use axum::http::header::{CONTENT_DISPOSITION, CONTENT_TYPE};
use axum::response::{IntoResponse, Response};
use vlab_protocol::RecordingSummary;

use super::extract::{InLab, ReaderIn};
use super::{AppError, AppState};
use crate::classroom::export::{ExportFormat, ExportRange};

/// `GET /api/labs/{lab}/recording`: what the lab has recorded (anybody who may watch).
pub async fn summary(
    State(app): State<Arc<AppState>>,
    ReaderIn { lab, .. }: ReaderIn,
) -> Result<Json<RecordingSummary>, AppError> {
    Ok(Json(app.classroom.timeline().summary(&lab)?))
}

/// `GET /api/labs/{lab}/recording.csv?run=&from=&to=` (the instructor): every
/// reading of the run, one row each.
pub async fn lab_csv(
    State(app): State<Arc<AppState>>,
    InLab { lab, caller }: InLab,
    query: Query<HashMap<String, String>>,
) -> Result<Response, AppError> {
    export(app, lab, caller, None, ExportFormat::Csv, &query).await
}

/// `GET /api/labs/{lab}/recording.mcap?run=&from=&to=` (the instructor).
pub async fn lab_mcap(
    State(app): State<Arc<AppState>>,
    InLab { lab, caller }: InLab,
    query: Query<HashMap<String, String>>,
) -> Result<Response, AppError> {
    export(app, lab, caller, None, ExportFormat::Mcap, &query).await
}

/// `GET /api/labs/{lab}/robots/{robot}/readings.csv?run=&from=&to=` (its owner and the
/// instructor).
pub async fn robot_csv(
    State(app): State<Arc<AppState>>,
    InLab { lab, caller }: InLab,
    Path((_, robot)): Path<(String, String)>,
    query: Query<HashMap<String, String>>,
) -> Result<Response, AppError> {
    export(app, lab, caller, Some(&robot), ExportFormat::Csv, &query).await
}

/// `GET /api/labs/{lab}/robots/{robot}/recording.mcap?run=&from=&to=` (its owner and
/// the instructor).
pub async fn robot_mcap(
    State(app): State<Arc<AppState>>,
    InLab { lab, caller }: InLab,
    Path((_, robot)): Path<(String, String)>,
    query: Query<HashMap<String, String>>,
) -> Result<Response, AppError> {
    export(app, lab, caller, Some(&robot), ExportFormat::Mcap, &query).await
}

async fn export(
    app: Arc<AppState>,
    lab: Arc<vlab_lab::LabHandle>,
    caller: vlab_lab::Caller,
    robot: Option<&str>,
    format: ExportFormat,
    query: &HashMap<String, String>,
) -> Result<Response, AppError> {
    let range = range(query)?;
    // Refusals (permission, range) come before a slot is taken.
    let plan = app.classroom.exports().plan(&lab, caller, robot, format, range)?;
    let headers = [
        (CONTENT_TYPE, plan.content_type().to_owned()),
        (CONTENT_DISPOSITION, format!("attachment; filename=\"{}\"", plan.file_name())),
    ];
    let body = app.classroom.exports().start(plan)?;
    Ok((headers, Body::from_stream(body)).into_response())
}

/// The query's run and steps: whole numbers, and no other parameter (a misspelt one
/// would silently export everything).
fn range(query: &HashMap<String, String>) -> Result<ExportRange, AppError> {
    if let Some(unknown) = query.keys().find(|key| !["run", "from", "to"].contains(&key.as_str())) {
        return Err(AppError::BadRequest(format!(
            "unknown parameter '{unknown}': an export takes 'run', 'from' and 'to' (e.g. ?run=2&from=0&to=4800)"
        )));
    }
    let number = |name: &str, what: &str| -> Result<Option<u64>, AppError> {
        query
            .get(name)
            .map(|value| {
                value.parse::<u64>().map_err(|_| {
                    AppError::BadRequest(format!("'{name}' must be {what} (a whole number from 0), not '{value}'"))
                })
            })
            .transpose()
    };
    let run = number("run", "a run number")?
        .map(|run| u32::try_from(run).map_err(|_| AppError::BadRequest(format!("there is no run {run}"))))
        .transpose()?;
    Ok(ExportRange { run, from: number("from", "a step")?, to: number("to", "a step")? })
}

#[cfg(test)]
mod tests {
    use super::*;

    fn query(pairs: &[(&str, &str)]) -> HashMap<String, String> {
        pairs.iter().map(|(k, v)| (k.to_string(), v.to_string())).collect()
    }

    #[test]
    fn ranges_are_read_or_refused_with_a_reason() {
        assert_eq!(range(&query(&[])).unwrap(), ExportRange::default());
        let read = range(&query(&[("run", "2"), ("from", "10"), ("to", "20")])).unwrap();
        assert_eq!(read, ExportRange { run: Some(2), from: Some(10), to: Some(20) });
        let error = range(&query(&[("from", "-1")])).unwrap_err().to_string();
        assert_eq!(error, "'from' must be a step (a whole number from 0), not '-1'");
        let error = range(&query(&[("form", "1")])).unwrap_err().to_string();
        assert!(error.starts_with("unknown parameter 'form'"), "{error}");
        assert!(range(&query(&[("run", "99999999999")])).is_err());
    }
}
