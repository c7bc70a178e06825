//! upload FILE [--bucket BUCKET] — signs in anonymously, uploads FILE to users/<uid>/<name>
//! with a progress line, then prints its metadata, download URL and the user's folder.
//! FIREBASE_STORAGE_EMULATOR_HOST / FIREBASE_AUTH_EMULATOR_HOST select the emulator.
use std::io::Write;
use std::path::PathBuf;

use fbstorage::{Auth, MetadataChanges, Storage, TaskStatus};

fn main() -> Result<(), Box<dyn std::error::Error>> {
    let mut args = std::env::args().skip(1);
    let file = PathBuf::from(args.next().ok_or("usage: upload FILE [--bucket BUCKET]")?);
    let bucket = match (args.next().as_deref(), args.next()) {
        (Some("--bucket"), Some(bucket)) => bucket,
        _ => "demo-bucket".to_owned(),
    };

    let auth = Auth::new("demo-api-key", Some("demo-project"))?;
    let user = auth.sign_in_anonymously()?;
    let storage = Storage::new(&bucket)?;
    storage.use_auth(Some(&auth))?;

    let name = file.file_name().ok_or("FILE has no name")?.to_string_lossy();
    let reference = storage.reference(&format!("users/{}/{name}", user.uid))?;
    let task = reference.put_file(&file, Some(&MetadataChanges::new().custom("uploaded-by", "examples/rust")))?;
    task.observe(TaskStatus::Progress, |s| {
        let total = s.total_bytes.unwrap_or(0).max(1);
        print!("\r{:5.1}%  {} / {} bytes", 100.0 * s.bytes_transferred as f64 / total as f64, s.bytes_transferred, total);
        let _ = std::io::stdout().flush();
    })?;
    let done = task.wait()?;
    println!();

    let metadata = done.metadata.ok_or("no metadata")?;
    println!("uploaded {reference}: {} bytes, {}", metadata.size.unwrap_or(0), metadata.content_type.unwrap_or_default());
    println!("download URL: {}", reference.download_url()?);
    for page in reference.parent()?.ok_or("no parent")?.pages(100) {
        for path in page?.item_paths() {
            println!("  {path}");
        }
    }
    Ok(())
}
