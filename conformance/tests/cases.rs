//! Runs every case under `conformance/cases/` as a libtest trial named
//! `tier/profile/case`. Tiers a case does not list show as ignored trials.

use libtest_mimic::{Arguments, Failed, Trial};
use pto_conformance::{default_root, discover, run, Outcome, Tier};

fn main() {
    let args = Arguments::from_args();
    let cases = match discover(&default_root()) {
        Ok(c) => c,
        Err(e) => {
            eprintln!("{e}");
            std::process::exit(2);
        }
    };
    let mut trials = Vec::new();
    for case in cases {
        let profile = case.header.profile.map(|p| p.name()).unwrap_or("kernel");
        for tier in Tier::ALL {
            let name = format!("{}/{profile}/{}", tier.name(), case.name);
            let listed = case.header.tiers.contains(&tier);
            let c = case.clone();
            trials.push(
                Trial::test(name, move || match run(&c, tier).0 {
                    o if o.ok() => Ok(()),
                    o => Err(Failed::from(o.describe())),
                })
                .with_ignored_flag(!listed),
            );
        }
    }
    let _ = Outcome::Pass;
    libtest_mimic::run(&args, trials).exit();
}
