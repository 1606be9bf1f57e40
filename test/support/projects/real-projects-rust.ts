/**
 * Small real Rust projects for the toolchain tests (docs/real-repositories.md#toolchains): a
 * library as libraries publish them, without a Cargo.lock, with one small dependency from
 * crates.io and one planted one-line bug.
 */
import { commitProject, type RealProject } from './real-projects';

/**
 * A library crate without Cargo.lock and without a .gitignore (so neither the lockfile setup
 * resolves nor `target/` is kept out of commits by the project): `itoa` from crates.io;
 * `digits` counts one digit too many.
 */
export function lockMissingRustLibrary(): RealProject {
  const repo = commitProject('digits', {
    'Cargo.toml': '[package]\nname = "digits"\nversion = "0.1.0"\nedition = "2021"\n\n[dependencies]\nitoa = "1"\n',
    'src/lib.rs':
      '/// How many decimal digits `n` has.\npub fn digits(n: u64) -> usize {\n    itoa::Buffer::new().format(n).len() + 1\n}\n\n#[cfg(test)]\nmod tests {\n    #[test]\n    fn counts_digits() {\n        assert_eq!(super::digits(1234), 4);\n    }\n}\n',
  });
  return { repo, fix: { path: 'src/lib.rs', old_string: '.len() + 1', new_string: '.len()' } };
}
