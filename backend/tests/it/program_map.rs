//! `robot.map()` against the real server: a program in a walled yard with a post gets
//! an occupancy grid where the walls and the post are occupied and the open floor is
//! free, at the resolution it asked for; a resolution out of bounds is refused at the
//! call.

use crate::common;

use common::{PATIENCE, TOKEN, TestServer, python_runs_here};
use reqwest::multipart::{Form, Part};
use serde_json::Value;
use vlab_server::scene::{MapLoader, Options, interpret};

const YARD_WITH_POST: &str = "
    environment wallrect { width 12; length 12; height 0.5; gravity -9.81; }
    static post { shape box(1, 1, 1); pos(4, 0.5, 6); }
";

const PROGRAM: &str = r#"
from vlab import Robot
robot = Robot()
grid = robot.map(resolution=0.1)
print("grid", grid.width, grid.height, grid.resolution, grid.x0)
col, row = grid.cell(6.0, -6.0)
print("row", "".join(str(v) for v in grid.rows[row]))
print("post", grid.occupied(4.0, -6.0), "floor", grid.occupied(8.0, -3.0), "outside", grid.occupied(50.0, 0.0))
try:
    robot.map(resolution=0.001)
except Exception as e:
    print("refused:", e)
while robot.step():
    pass
"#;

async fn console(server: &TestServer, robot: &str) -> String {
    let url = server.url(&format!("/api/labs/demo/robots/{robot}"));
    let report: Value = server.http.get(url).bearer_auth(TOKEN).send().await.unwrap().json().await.unwrap();
    let lines = report["console"].as_array().cloned().unwrap_or_default();
    lines.iter().filter_map(|l| l["text"].as_str().map(str::to_owned)).collect::<Vec<_>>().join("\n")
}

#[tokio::test]
async fn a_program_maps_the_walls_and_the_post_of_its_lab() {
    if !python_runs_here() {
        return;
    }
    let scene = interpret(YARD_WITH_POST, "yard.vlab", &MapLoader::new(), &Options::default()).unwrap().model;
    let server = TestServer::start_with(scene, true).await;
    let description = "include \"diffbot_robot.vlab\";\ncall diffbot(\"_map\", 8, 3, 0);\n";
    let form = Form::new()
        .part("description", Part::text(description).file_name("robot.vlab"))
        .part("program", Part::text(PROGRAM).file_name("main.py"));
    let response =
        server.http.post(server.url("/api/labs/demo/robots")).bearer_auth(TOKEN).multipart(form).send().await.unwrap();
    assert_eq!(response.status().as_u16(), 200, "{}", response.text().await.unwrap());

    let deadline = std::time::Instant::now() + PATIENCE;
    let text = loop {
        let text = console(&server, "diffbot_map").await;
        if text.contains("refused:") {
            break text;
        }
        assert!(std::time::Instant::now() < deadline, "no map in the console:\n{text}");
        tokio::time::sleep(std::time::Duration::from_millis(100)).await;
    };
    eprintln!("{text}");
    let grid: Vec<&str> = text.lines().find(|l| l.starts_with("grid ")).unwrap().split(' ').collect();
    let (width, height): (usize, usize) = (grid[1].parse().unwrap(), grid[2].parse().unwrap());
    assert!((120..=130).contains(&width) && (120..=130).contains(&height), "the 12 m yard at 0.1 m: {grid:?}");
    let row = text.lines().find_map(|l| l.strip_prefix("row ")).unwrap();
    // The row across the middle: a wall, the post, a wall; the map reaches as far as
    // the floor, a little past the walls.
    let runs: Vec<(usize, usize)> = row.match_indices('1').fold(Vec::new(), |mut runs: Vec<(usize, usize)>, (i, _)| {
        match runs.last_mut() {
            Some((start, len)) if *start + *len == i => *len += 1,
            _ => runs.push((i, 1)),
        }
        runs
    });
    assert_eq!(runs.len(), 3, "a wall, the post, a wall: {row}");
    assert!(runs[0].0 <= 2 && runs[2].0 + runs[2].1 >= row.len() - 2, "walls at both ends: {row}");
    assert!((9..=11).contains(&runs[1].1), "the 1 m post is about 10 cells: {row}");
    let x0: f64 = grid[4].parse().unwrap();
    let post_start = x0 + runs[1].0 as f64 * 0.1;
    assert!((post_start - 3.5).abs() <= 0.1, "from x = 3.5 m, not {post_start}: {row}");
    assert!(text.contains("post True floor False outside True"), "{text}");
    assert!(text.contains("refused: the map's resolution must be between 0.01 and 1 m"), "{text}");
}
