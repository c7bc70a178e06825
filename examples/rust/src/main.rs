//! upload FILE [--bucket BUCKET] [--max-speed BYTES/S] — signs in anonymously, streams FILE to
//! users/<uid>/<name> through a `Write` with a progress line, streams it back through a `Read`
//! comparing every byte, and checks its last KiB with a ranged read (constant memory, whatever
//! the size; both ways capped at --max-speed), then prints its metadata, download URL and the
//! user's folder.
//! FIREBASE_STORAGE_EMULATOR_HOST / FIREBASE_AUTH_EMULATOR_HOST select the emulator.
use std::io::{Read, Write};
use std::path::PathBuf;

use fbstorage::{Auth, MetadataChanges, Storage, TaskStatus};

fn main() -> Result<(), Box<dyn std::error::Error>> {
    let mut args = std::env::args().skip(1);
    let file = PathBuf::from(args.next().ok_or("usage: upload FILE [--bucket BUCKET]")?);
    let (mut bucket, mut max_speed) = ("demo-bucket".to_owned(), 0u64);
    while let (Some(flag), Some(value)) = (args.next(), args.next()) {
        match flag.as_str() {
            "--bucket" => bucket = value,
            "--max-speed" => max_speed = value.parse()?,
            _ => return Err(format!("unknown option {flag}").into()),
        }
    }

    let auth = Auth::new("demo-api-key", Some("demo-project"))?;
    let user = auth.sign_in_anonymously()?;
    let storage = Storage::new(&bucket)?;
    storage.use_auth(Some(&auth))?;

    let name = file.file_name().ok_or("FILE has no name")?.to_string_lossy();
    let reference = storage.reference(&format!("users/{}/{name}", user.uid))?;
    storage.set_max_upload_speed(max_speed)?;
    storage.set_max_download_speed(max_speed)?;

    let mut input = std::fs::File::open(&file)?;
    let mut writer = reference.writer(Some(&MetadataChanges::new().custom("uploaded-by", "examples/rust")))?;
    writer.task().observe(TaskStatus::Progress, |s| {
        print!("\r{} bytes sent", s.bytes_transferred);
        let _ = std::io::stdout().flush();
    })?;
    std::io::copy(&mut input, &mut writer)?;
    let metadata = writer.finish()?;
    println!();

    // Back through a reader, compared block by block with the file.
    let (mut local, mut remote) = (std::fs::File::open(&file)?, reference.reader()?);
    let (mut expected, mut got) = (vec![0u8; 1 << 20], vec![0u8; 1 << 20]);
    let mut compared = 0u64;
    loop {
        let n = remote.read(&mut got)?;
        local.read_exact(&mut expected[..n])?;
        if got[..n] != expected[..n] {
            return Err(format!("the download differs from FILE near byte {compared}").into());
        }
        compared += n as u64;
        if n == 0 {
            break;
        }
    }
    let size = metadata.size.unwrap_or(0);
    let tail = reference.get_range(size.saturating_sub(1024), None, 1024)?;
    let mut last = vec![0u8; tail.len()];
    std::io::Seek::seek(&mut local, std::io::SeekFrom::Start(size - tail.len() as u64))?;
    local.read_exact(&mut last)?;
    if tail != last {
        return Err("the last KiB differs from FILE's".into());
    }
    println!("read back {compared} bytes, all equal; last {} bytes match", tail.len());

    println!("uploaded {reference}: {} bytes, {}", size, metadata.content_type.unwrap_or_default());
    println!("download URL: {}", reference.download_url()?);
    for page in reference.parent()?.ok_or("no parent")?.pages(100) {
        for path in page?.item_paths() {
            println!("  {path}");
        }
    }
    Ok(())
}
