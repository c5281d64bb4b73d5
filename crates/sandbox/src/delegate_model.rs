//! Tests of `delegate.rs` against a model of the kernel's cgroup v2 rules, through the starting
//! states ojd meets (a plain service, a `Delegate=yes` unit, a login session's scope, a
//! container's namespace root, the root cgroup, a read-only cgroupfs, a missing controller).
//!
//! The model keeps the rules that decide whether delegation works, as the kernel applies them
//! (kernel/cgroup/cgroup.c): a non-root cgroup with processes cannot enable a domain-only
//! controller (memory: EBUSY) but can enable threaded-capable ones (cpu, pids, cpuset); no
//! process can then join a child of it (EOPNOTSUPP); a cgroup whose `subtree_control` is not
//! empty takes no process (EBUSY); a child has the controllers its parent enabled.

use std::cell::RefCell;
use std::collections::BTreeMap;
use std::io;
use std::path::{Path, PathBuf};

use super::{delegate, CgroupFs, Delegation, Refusal, LEAF};

const THREADED: [&str; 3] = ["cpu", "pids", "cpuset"];

#[derive(Clone, Default)]
struct Node {
    subtree: Vec<String>,
    procs: Vec<u32>,
    kind: String,
}

struct Model {
    root: PathBuf,
    root_controllers: Vec<String>,
    nodes: RefCell<BTreeMap<PathBuf, Node>>,
    read_only: bool,
}

fn err(code: i32) -> io::Error {
    io::Error::from_raw_os_error(code)
}

impl Model {
    /// `root_controllers`: what the kernel has; `tree`: (path, enabled controllers, processes).
    fn new(root_controllers: &str, tree: &[(&str, &str, &[u32])]) -> Model {
        let root = PathBuf::from("/cg");
        let mut nodes = BTreeMap::new();
        nodes.insert(root.clone(), Node::default());
        for (path, subtree, procs) in tree {
            let node = Node {
                subtree: subtree.split_whitespace().map(str::to_string).collect(),
                procs: procs.to_vec(),
                kind: "domain".into(),
            };
            nodes.insert(root.join(path.trim_start_matches('/')), node);
        }
        Model {
            root,
            root_controllers: root_controllers
                .split_whitespace()
                .map(str::to_string)
                .collect(),
            nodes: RefCell::new(nodes),
            read_only: false,
        }
    }

    fn split(path: &Path) -> (PathBuf, String) {
        let file = path.file_name().expect("a file").to_string_lossy().into();
        (path.parent().expect("a folder").to_path_buf(), file)
    }

    fn controllers(&self, dir: &Path) -> Vec<String> {
        if dir == self.root {
            return self.root_controllers.clone();
        }
        let nodes = self.nodes.borrow();
        nodes[dir.parent().expect("below the root")].subtree.clone()
    }

    fn procs_of(&self, dir: &Path) -> Vec<u32> {
        self.nodes.borrow()[dir].procs.clone()
    }
}

impl CgroupFs for Model {
    fn read(&self, path: &Path) -> io::Result<String> {
        let (dir, file) = Model::split(path);
        let nodes = self.nodes.borrow();
        let node = nodes.get(&dir).ok_or_else(|| err(libc::ENOENT))?;
        Ok(match file.as_str() {
            "cgroup.controllers" => {
                drop(nodes);
                self.controllers(&dir).join(" ")
            }
            "cgroup.subtree_control" => node.subtree.join(" "),
            "cgroup.procs" => node.procs.iter().map(|p| format!("{p}\n")).collect(),
            "cgroup.type" if dir != self.root => node.kind.clone(),
            _ => return Err(err(libc::ENOENT)),
        })
    }

    fn write(&self, path: &Path, value: &str) -> io::Result<()> {
        if self.read_only {
            return Err(err(libc::EROFS));
        }
        let (dir, file) = Model::split(path);
        let available = self.controllers(&dir);
        let is_root = dir == self.root;
        let mut nodes = self.nodes.borrow_mut();
        let node = nodes.get(&dir).ok_or_else(|| err(libc::ENOENT))?.clone();
        match file.as_str() {
            "cgroup.subtree_control" => {
                let add: Vec<&str> = value
                    .split_whitespace()
                    .map(|w| w.strip_prefix('+').expect("only enabling"))
                    .collect();
                if add.iter().any(|c| !available.iter().any(|a| a == c)) {
                    return Err(err(libc::ENOENT));
                }
                let domain = add.iter().any(|c| !THREADED.contains(c));
                if !is_root && !node.procs.is_empty() && domain {
                    return Err(err(libc::EBUSY));
                }
                let n = nodes.get_mut(&dir).expect("looked up above");
                for c in add {
                    if !n.subtree.iter().any(|s| s == c) {
                        n.subtree.push(c.to_string());
                    }
                }
                Ok(())
            }
            "cgroup.procs" => {
                let pid: u32 = value.trim().parse().map_err(|_| err(libc::EINVAL))?;
                if !nodes.values().any(|n| n.procs.contains(&pid)) {
                    return Err(err(libc::ESRCH));
                }
                if !is_root && !node.subtree.is_empty() {
                    return Err(err(libc::EBUSY));
                }
                let parent = dir.parent().filter(|_| !is_root);
                if let Some(p) = parent.filter(|p| *p != self.root.as_path()) {
                    let p = &nodes[p];
                    // A populated parent that enabled (threaded) controllers is a thread root.
                    if !p.procs.is_empty() && !p.subtree.is_empty() {
                        return Err(err(libc::EOPNOTSUPP));
                    }
                }
                for n in nodes.values_mut() {
                    n.procs.retain(|&q| q != pid);
                }
                nodes.get_mut(&dir).expect("exists").procs.push(pid);
                Ok(())
            }
            _ => Err(err(libc::EACCES)),
        }
    }

    fn mkdir(&self, path: &Path) -> io::Result<()> {
        if self.read_only {
            return Err(err(libc::EROFS));
        }
        let mut nodes = self.nodes.borrow_mut();
        if nodes.contains_key(path) {
            return Err(err(libc::EEXIST));
        }
        if !nodes.contains_key(path.parent().expect("below the root")) {
            return Err(err(libc::ENOENT));
        }
        let node = Node {
            kind: "domain".into(),
            ..Node::default()
        };
        nodes.insert(path.to_path_buf(), node);
        Ok(())
    }

    fn exists(&self, path: &Path) -> bool {
        self.read(path).is_ok()
    }
}

/// What a keeper does with a delegation: its own cgroup beside the leaf, joined, with the
/// controllers it needs.
fn keeper_joins(m: &Model, d: &Delegation, pid: u32) -> io::Result<Vec<String>> {
    let dir = d.base.join(format!("ojd-keeper-{pid}"));
    m.mkdir(&dir)?;
    m.write(&dir.join("cgroup.procs"), &pid.to_string())?;
    Ok(m.controllers(&dir))
}

const ALL: &str = "cpuset cpu io memory hugetlb pids rdma misc";

fn works(m: &Model, own: &str, leaf: &str, pids: &[u32], cpuset: bool) -> Delegation {
    let d = delegate(m, &m.root.clone(), own).expect("delegation works");
    assert_eq!(d.leaf, m.root.join(leaf.trim_start_matches('/')));
    assert_eq!(d.cpuset, cpuset);
    assert_eq!(
        m.procs_of(&d.leaf),
        pids,
        "every process moved into the leaf"
    );
    // The keeper is a child of the judging process, in its leaf.
    let keeper = 9000;
    m.nodes
        .borrow_mut()
        .get_mut(&d.leaf)
        .expect("leaf")
        .procs
        .push(keeper);
    let got = keeper_joins(m, &d, keeper).expect("the keeper joins its cgroup");
    for c in ["memory", "pids", "cpu"] {
        assert!(got.iter().any(|g| g == c), "{c} in {got:?}");
    }
    assert_eq!(got.iter().any(|g| g == "cpuset"), cpuset);
    d
}

#[test]
fn a_delegated_unit_moves_its_processes_into_a_leaf_and_keepers_join_beside_it() {
    let m = Model::new(
        ALL,
        &[
            ("system.slice", "cpuset cpu io memory pids", &[]),
            ("system.slice/ojd.service", "", &[100, 101]),
        ],
    );
    let d = works(
        &m,
        "/system.slice/ojd.service",
        "/system.slice/ojd.service/ojd",
        &[100, 101],
        true,
    );
    assert_eq!(d.base, m.root.join("system.slice/ojd.service"));
    // A second judging process started from the leaf (or the same one again) finds it done.
    let again = delegate(&m, &m.root.clone(), "/system.slice/ojd.service/ojd").expect("again");
    assert_eq!(again.base, d.base);
}

#[test]
fn a_plain_service_or_a_login_scope_lacks_cpu_and_asks_for_a_scope() {
    for own in [
        "/system.slice/ojd.service",
        "/user.slice/user-0.slice/session-1.scope",
    ] {
        // systemd enables only memory and pids below the root for units without delegation.
        let m = Model::new(
            ALL,
            &[
                ("system.slice", "memory pids", &[]),
                ("system.slice/ojd.service", "", &[100]),
                ("user.slice", "memory pids", &[]),
                ("user.slice/user-0.slice", "memory pids", &[]),
                ("user.slice/user-0.slice/session-1.scope", "", &[100]),
            ],
        );
        match delegate(&m, &m.root.clone(), own) {
            Err(Refusal::Missing { cgroup, missing }) => {
                assert_eq!(cgroup, m.root.join(&own[1..]));
                assert_eq!(missing, vec!["cpu".to_string()]);
            }
            other => panic!("{own}: {other:?}"),
        }
        // Nothing was changed.
        assert_eq!(m.procs_of(&m.root.join(&own[1..])), vec![100]);
    }
}

#[test]
fn a_scope_systemd_made_with_delegate_works() {
    // After StartTransientUnit(PIDs=[self], Delegate=yes) the process is alone in its scope.
    let m = Model::new(
        ALL,
        &[
            ("system.slice", "cpuset cpu io memory pids", &[]),
            ("system.slice/ojd-100.scope", "", &[100]),
        ],
    );
    works(
        &m,
        "/system.slice/ojd-100.scope",
        "/system.slice/ojd-100.scope/ojd",
        &[100],
        true,
    );
}

#[test]
fn a_container_at_its_namespace_root_moves_its_other_processes_too() {
    // A private cgroup namespace: "/" is a non-root cgroup holding init and a shell as well.
    let m = Model::new("cpu memory pids", &[("ctr", "", &[1, 7, 42])]);
    m.nodes
        .borrow_mut()
        .get_mut(Path::new("/cg"))
        .expect("root")
        .subtree = vec!["cpu".into(), "memory".into(), "pids".into()];
    // Seen from inside, the namespace root is the mount's root but has a cgroup.type.
    let mount = m.root.join("ctr");
    let d = delegate(&m, &mount, "/").expect("delegation at the namespace root");
    assert_eq!(d.leaf, mount.join(LEAF));
    assert!(!d.cpuset, "no cpuset controller was delegated");
    assert_eq!(m.procs_of(&d.leaf), vec![1, 7, 42]);
    let got = keeper_joins(&m, &d, 7).expect("joins");
    assert!(got.iter().any(|c| c == "memory"));
}

#[test]
fn the_root_cgroup_keeps_its_processes_and_enables_controllers() {
    let m = Model::new(ALL, &[]);
    m.nodes
        .borrow_mut()
        .get_mut(Path::new("/cg"))
        .expect("root")
        .procs = vec![1, 100];
    works(&m, "/", "/", &[1, 100], true);
}

#[test]
fn a_read_only_cgroupfs_is_refused_naming_it() {
    let mut m = Model::new(
        ALL,
        &[
            ("system.slice", "cpuset cpu io memory pids", &[]),
            ("system.slice/ojd.service", "", &[100]),
        ],
    );
    m.read_only = true;
    match delegate(&m, &m.root.clone(), "/system.slice/ojd.service") {
        Err(Refusal::Broken(e)) => assert!(e.contains("read-only"), "{e}"),
        other => panic!("{other:?}"),
    }
}

#[test]
fn a_kernel_without_a_controller_is_refused_naming_it() {
    let m = Model::new("cpuset io memory pids", &[("a", "", &[100])]);
    m.nodes
        .borrow_mut()
        .get_mut(Path::new("/cg"))
        .expect("root")
        .subtree = vec!["memory".into(), "pids".into(), "cpuset".into()];
    let e = delegate(&m, &m.root.clone(), "/a").expect_err("no cpu controller");
    assert_eq!(e.to_string(), "cgroup v2 at /cg/a lacks the cpu controller");
}

#[test]
fn a_threaded_cgroup_is_refused() {
    let m = Model::new(ALL, &[("s", "cpu memory pids", &[]), ("s/t", "", &[100])]);
    m.nodes
        .borrow_mut()
        .get_mut(Path::new("/cg/s/t"))
        .expect("t")
        .kind = "threaded".into();
    assert!(matches!(
        delegate(&m, &m.root.clone(), "/s/t"),
        Err(Refusal::Broken(e)) if e.contains("threaded")
    ));
}

/// The model reproduces the fault the earlier code met: it enabled the controllers on its own,
/// populated cgroup (refused: EBUSY, the error discarded), then `+cpuset` alone (accepted), and
/// the keeper could not join its cgroup below (EOPNOTSUPP).
#[test]
fn enabling_controllers_on_a_populated_cgroup_fails_as_the_kernel_does() {
    let m = Model::new(
        ALL,
        &[
            ("system.slice", "cpuset cpu io memory pids", &[]),
            ("system.slice/ojd.service", "", &[100, 324]),
        ],
    );
    let own = m.root.join("system.slice/ojd.service");
    let control = own.join("cgroup.subtree_control");
    let e = m.write(&control, "+memory +pids +cpu").expect_err("EBUSY");
    assert_eq!(e.raw_os_error(), Some(libc::EBUSY));
    m.write(&control, "+cpuset")
        .expect("a threaded controller alone is accepted");
    let keeper = own.join("ojd-keeper-324");
    m.mkdir(&keeper).expect("mkdir");
    let e = m
        .write(&keeper.join("cgroup.procs"), "324")
        .expect_err("EOPNOTSUPP");
    assert_eq!(e.raw_os_error(), Some(libc::EOPNOTSUPP));
}

#[test]
fn own_path_reads_the_unified_line() {
    let text = "12:memory:/x\n0::/system.slice/ojd.service\n";
    assert_eq!(
        super::own_path(text).as_deref(),
        Some("/system.slice/ojd.service")
    );
    assert_eq!(super::own_path("4:pids:/\n"), None);
}

/// A plain service's cgroup, which systemd gives memory and pids only.
fn plain_service() -> Model {
    Model::new(
        ALL,
        &[
            ("system.slice", "memory pids", &[]),
            ("system.slice/ojd.service", "", &[100]),
        ],
    )
}

const SERVICE: &str = "/system.slice/ojd.service";

#[test]
fn without_systemd_a_missing_controller_is_refused_naming_it_and_the_fix() {
    let m = plain_service();
    let host = super::Host {
        systemd: false,
        undelegated_scope: false,
    };
    let mut asked = 0;
    let e = super::decide(&m, &m.root.clone(), SERVICE, host, &mut || {
        asked += 1;
        Err("unreachable".into())
    })
    .expect_err("no controllers, no systemd");
    assert_eq!(asked, 0, "no systemd to ask");
    assert!(e.contains("lacks the cpu controller"), "{e}");
    assert!(
        e.contains("--cgroupns=private"),
        "the fix without systemd: {e}"
    );
}

#[test]
fn a_refused_dbus_call_is_refused_naming_the_controller_the_answer_and_the_fix() {
    let m = plain_service();
    let host = super::Host {
        systemd: true,
        undelegated_scope: false,
    };
    let refusal = "asking systemd for a delegated scope failed (systemd could not be asked \
                   (/run/systemd/private: StartTransientUnit: org.freedesktop.DBus.Error.AccessDenied)): \
                   start ojd in a delegated scope: systemd-run --scope -p Delegate=yes -- ojd ...";
    let mut asked = 0;
    let e = super::decide(&m, &m.root.clone(), SERVICE, host, &mut || {
        asked += 1;
        Err(refusal.into())
    })
    .expect_err("refused");
    assert_eq!(asked, 1);
    assert!(e.contains("lacks the cpu controller"), "{e}");
    assert!(
        e.contains("AccessDenied") && e.contains("systemd-run --scope -p Delegate=yes"),
        "{e}"
    );
    // Nothing was changed: the service's process is where it was, no controller enabled.
    assert_eq!(
        m.procs_of(&m.root.join("system.slice/ojd.service")),
        vec![100]
    );
}

#[test]
fn an_undelegated_login_scope_asks_systemd_first_even_with_the_controllers() {
    let m = Model::new(
        ALL,
        &[
            ("user.slice", "cpuset cpu io memory pids", &[]),
            ("user.slice/session-1.scope", "", &[100]),
        ],
    );
    let host = super::Host {
        systemd: true,
        undelegated_scope: true,
    };
    let mut asked = 0;
    let e = super::decide(
        &m,
        &m.root.clone(),
        "/user.slice/session-1.scope",
        host,
        &mut || {
            asked += 1;
            Err("no bus".into())
        },
    );
    assert_eq!(
        asked, 1,
        "the scope is systemd's: ojd asks for its own first"
    );
    // The scope's cgroup could be delegated here, so that is what happens when asking failed.
    assert!(e.is_ok(), "{e:?}");
}

#[test]
fn a_read_only_cgroupfs_is_refused_without_asking_systemd() {
    // A delegated service's cgroup, on a cgroupfs mounted read-only (a container's default).
    let mut m = Model::new(
        ALL,
        &[
            ("system.slice", "cpuset cpu io memory pids", &[]),
            ("system.slice/ojd.service", "", &[100]),
        ],
    );
    m.read_only = true;
    let host = super::Host {
        systemd: true,
        undelegated_scope: false,
    };
    let mut asked = 0;
    let e = super::decide(&m, &m.root.clone(), SERVICE, host, &mut || {
        asked += 1;
        Err("unreachable".into())
    })
    .expect_err("read-only");
    assert_eq!(asked, 0, "a scope of systemd's would be just as read-only");
    assert!(e.contains("read-only"), "{e}");
}
