//! The simulated class: students who join the demo lab and bring a wandering robot, and
//! the few among them who remove a robot and upload another, each time with a fresh
//! mesh and program, for as long as the soak runs.

use std::sync::Arc;
use std::time::Duration;

use anyhow::{Context, Result, bail};
use futures_util::{StreamExt, stream};
use rand::Rng;
use reqwest::StatusCode;
use reqwest::multipart::{Form, Part};
use serde_json::json;

use crate::api::{Api, Counters, shortened};

/// The lab every soak runs in: the server's demo lab.
pub const LAB: &str = "demo";

/// Joins and first uploads in flight at once while the class arrives.
const ARRIVING_AT_ONCE: usize = 8;

/// Each robot wanders as in the program benches: ahead while the lidar's front sector
/// is clear, turning away from the nearer side when it is not.
const WANDERER: &str = include_str!("../../benches/common/wanderer.py");

/// A student in the lab with their robot.
#[derive(Clone)]
pub struct Student {
    /// Short and unique: names their robots.
    pub tag: String,
    /// Their session.
    pub token: String,
    /// The wandering diffbot they brought.
    pub robot: String,
}

/// Whether robots get Python programs (not where `python3` is missing or the server
/// cannot confine programs).
#[derive(Clone, Copy, PartialEq, Eq)]
pub enum Programs {
    /// Every robot runs one.
    Python,
    /// Robots are driven by nobody.
    None,
}

/// Joins `robots` students with `join_code`, each uploading a diffbot with the
/// wandering program on a grid over the yard. The first goes alone: if the server
/// refuses its program because programs cannot be confined here, the class comes
/// without programs (said on stdout).
pub async fn arrive(
    api: &Api,
    join_code: &str,
    robots: usize,
    mut programs: Programs,
) -> Result<(Vec<Student>, Programs)> {
    let first = join(api, join_code, 0).await?;
    match upload_diffbot(api, &first, 0, robots, programs).await? {
        Uploaded::Yes => {}
        Uploaded::ProgramsRefused(reason) => {
            println!("the server refuses Python programs here ({reason}): robots come without programs");
            programs = Programs::None;
            if upload_diffbot(api, &first, 0, robots, programs).await? != Uploaded::Yes {
                bail!("the first robot was refused even without a program");
            }
        }
    }
    let mut class = vec![first];
    let rest: Vec<Result<Student>> = stream::iter(1..robots)
        .map(|index| async move {
            let student = join(api, join_code, index).await?;
            match upload_diffbot(api, &student, index, robots, programs).await? {
                Uploaded::Yes => Ok(student),
                Uploaded::ProgramsRefused(reason) => bail!("{}'s program was refused: {reason}", student.tag),
            }
        })
        .buffer_unordered(ARRIVING_AT_ONCE)
        .collect()
        .await;
    for student in rest {
        class.push(student?);
    }
    class.sort_by(|a, b| a.tag.cmp(&b.tag));
    Ok((class, programs))
}

async fn join(api: &Api, join_code: &str, index: usize) -> Result<Student> {
    let tag = format!("s{index:03}");
    let body = json!({ "join_code": join_code, "name": format!("Student {index:03}") });
    let joined = api
        .expect(&format!("{tag} joins"), StatusCode::OK, |http| http.post(api.url("/api/join")).json(&body))
        .await
        .with_context(|| format!("{tag} could not join (see the warning above)"))?;
    let token = joined["token"].as_str().with_context(|| format!("no token in the join's answer: {joined}"))?;
    Ok(Student { tag: tag.clone(), token: token.to_owned(), robot: format!("diffbot_{tag}") })
}

#[derive(PartialEq, Eq)]
enum Uploaded {
    Yes,
    ProgramsRefused(String),
}

/// Uploads `student`'s diffbot at spot `index` of `of` on the yard.
async fn upload_diffbot(api: &Api, student: &Student, index: usize, of: usize, programs: Programs) -> Result<Uploaded> {
    let (x, z) = grid_spot(index, of);
    let description =
        format!("include \"diffbot_robot.vlab\";\ncall diffbot(\"_{}\", {x:.2}, {z:.2}, 0);\n", student.tag);
    let what = format!("{} uploads {}", student.tag, student.robot);
    let url = api.url(&format!("/api/labs/{LAB}/robots"));
    let (status, body) = api
        .send(&what, |http| {
            let mut form = Form::new().part("description", Part::text(description.clone()).file_name("robot.vlab"));
            if programs == Programs::Python {
                form = form.part("program", Part::text(WANDERER).file_name("main.py"));
            }
            http.post(&url).bearer_auth(&student.token).multipart(form)
        })
        .await
        .with_context(|| format!("{what}: no answer (see the warning above)"))?;
    if status == StatusCode::OK {
        return Ok(Uploaded::Yes);
    }
    if status == StatusCode::UNPROCESSABLE_ENTITY && body.contains("sandbox") {
        let reply: serde_json::Value = serde_json::from_str(&body).unwrap_or_default();
        let reason = reply["errors"][0]["message"].as_str().unwrap_or(&body).to_owned();
        return Ok(Uploaded::ProgramsRefused(reason));
    }
    bail!("{what}: HTTP {status}: {}", shortened(&body))
}

/// Where robot `index` of `of` starts: a grid of six columns over the yard's
/// 12 m × 12 m, clear of the strip along its north fence (z > 10.5) the churned
/// robots use.
fn grid_spot(index: usize, of: usize) -> (f64, f64) {
    let rows = of.div_ceil(6).max(1);
    let (column, row) = (index % 6, index / 6);
    let z_step = if rows > 1 { 9.0 / (rows - 1) as f64 } else { 0.0 };
    (1.0 + 2.0 * column as f64, 1.0 + z_step * row as f64)
}

/// Churns forever (until aborted): uploads a robot carrying a fresh mesh of `mesh_bytes`
/// and a program, lets it run a few seconds, gives the student's diffbot a new program,
/// removes the robot, and again. Removed uploads are what a server must not keep.
pub async fn churn(api: Arc<Api>, student: Student, slot: usize, programs: Programs, mesh_bytes: usize) {
    let counters = Arc::clone(&api.counters);
    let x = 1.0 + (slot % 10) as f64 * 1.1;
    let z = 11.0 + 0.5 * ((slot / 10) % 2) as f64;
    let robots_url = api.url(&format!("/api/labs/{LAB}/robots"));
    for round in 1u64.. {
        let name = format!("shell_{}_{round}", student.tag);
        let description = format!(
            "robot id:[\"{name}\"] {{\n  body {{\n    id:[\"{name}_hull\"] {{ shape mesh(\"hull.mesh\", 1); \
             customgeom box(0.3, 0.1, 0.2); pos({x:.2}, 0.06, {z:.2}); material \"Blue\"; density 500; }}\n  }}\n}}\n"
        );
        let mesh = hull_obj(mesh_bytes);
        let program = format!(
            "# round {round} of {name}\nfrom vlab import Robot\n\nrobot = Robot()\nwhile robot.step():\n    pass\n"
        );
        let uploaded = api
            .expect(&format!("{} uploads {name}", student.tag), StatusCode::OK, |http| {
                let mut form = Form::new()
                    .part("description", Part::text(description.clone()).file_name("robot.vlab"))
                    .part("hull.obj", Part::bytes(mesh.clone()).file_name("hull.obj"));
                if programs == Programs::Python {
                    form = form.part("program", Part::text(program.clone()).file_name("main.py"));
                }
                http.post(&robots_url).bearer_auth(&student.token).multipart(form)
            })
            .await
            .is_some();
        if uploaded {
            Counters::bump(&counters.uploads);
            tokio::time::sleep(random_duration(2.0, 6.0)).await;
            if programs == Programs::Python {
                replace_program(&api, &student, round).await;
            }
        }
        let removal = api.url(&format!("/api/labs/{LAB}/robots/{name}"));
        let what = format!("{} removes {name}", student.tag);
        if uploaded {
            if api
                .expect(&what, StatusCode::NO_CONTENT, |http| http.delete(&removal).bearer_auth(&student.token))
                .await
                .is_some()
            {
                Counters::bump(&counters.removals);
            }
        } else {
            // An upload whose answer was lost may still have landed: take it out, or the
            // student's quota fills up with robots nobody removes.
            let _ = api.send(&what, |http| http.delete(&removal).bearer_auth(&student.token)).await;
            tokio::time::sleep(Duration::from_secs(2)).await;
        }
        tokio::time::sleep(random_duration(0.5, 1.5)).await;
    }
}

/// Gives `student`'s diffbot a wanderer that differs in its speeds and text each
/// `round`: a program replaced is kept by the server like an upload.
async fn replace_program(api: &Api, student: &Student, round: u64) {
    let speed = 0.10 + (round % 7) as f64 * 0.01;
    let program =
        format!("# version {round}\n{}", WANDERER.replace("drive.set(0.15,", &format!("drive.set({speed:.2},")));
    let url = api.url(&format!("/api/labs/{LAB}/robots/{}/program", student.robot));
    let what = format!("{} replaces the program of {}", student.tag, student.robot);
    let replaced = api
        .expect(&what, StatusCode::OK, |http| {
            let form = Form::new().part("program", Part::text(program.clone()).file_name("main.py"));
            http.put(&url).bearer_auth(&student.token).multipart(form)
        })
        .await;
    if replaced.is_some() {
        Counters::bump(&api.counters.programs_replaced);
    }
}

/// A valid OBJ mesh (a wedge the size of the hull's collision box) of about `bytes`:
/// the rest is random text in comments, so that every upload's file is new to the
/// server and cannot be shared with an earlier one.
fn hull_obj(bytes: usize) -> Vec<u8> {
    const GEOMETRY: &str = "o hull\nv -0.15 -0.05 -0.1\nv 0.15 -0.05 -0.1\nv 0.15 -0.05 0.1\nv -0.15 -0.05 0.1\n\
                            v -0.15 0.05 0\nv 0.15 0.05 0\nf 1 2 3\nf 1 3 4\nf 1 5 6\nf 1 6 2\nf 4 3 6\nf 4 6 5\n\
                            f 1 4 5\nf 2 6 3\n";
    const HEX: &[u8; 16] = b"0123456789abcdef";
    let mut obj = Vec::with_capacity(bytes + 128);
    obj.extend_from_slice(GEOMETRY.as_bytes());
    let mut rng = rand::rng();
    while obj.len() < bytes {
        obj.extend_from_slice(b"# ");
        obj.extend((0..126).map(|_| HEX[rng.random_range(0..16)]));
        obj.push(b'\n');
    }
    obj
}

/// A random duration between `low` and `high` seconds.
pub fn random_duration(low: f64, high: f64) -> Duration {
    Duration::from_secs_f64(rand::rng().random_range(low..high))
}
