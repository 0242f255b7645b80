#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0
"""Check the netlink specs of AF_SMC against the uAPI header and the kernel.

  smc_nl_spec.py [--specs DIR | SPEC.yaml ...] [--header smc.h] [-v]
      Load Documentation/netlink/specs/smc.yaml and smc-pnetid.yaml,
      check that they are consistent, and that every SMC_GEN_*, SMC_NLA_*,
      SMC_NETLINK_* and SMC_PNETID_* enum of include/uapi/linux/smc.h has
      the same names and values in the specs, and the other way round.

  smc_nl_spec.py --live [...]
      Also ask the running kernel: resolve both families through nlctrl,
      compare their operations, permissions, version and maxattr with the
      specs, send every dump and every do that has a reply, and check
      every attribute of every reply against the spec, nests included.
      Needs the smc module loaded; changes nothing.

  smc_nl_spec.py --self-test
      Check the checker on crafted input (no kernel needed).

Failures are printed with the path of the attribute, e.g.
SMC_GEN_DEV_SMCR/SMC_NLA_DEV_PORT/SMC_NLA_DEV_PORT_PNETID.  The last line
is a summary, "smc_nl_spec: N passed, N failed"; the exit status is 1 if
anything failed.  Needs Python 3 and PyYAML only.
"""

import argparse
import ast
import errno
import os
import re
import socket
import struct
import sys

try:
    import yaml
except ImportError:
    sys.exit("smc_nl_spec: needs PyYAML (Debian: python3-yaml)")

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)
import smc_nl_raw as raw  # noqa: E402  (constants and attr())

TOP = os.path.join(HERE, *[os.pardir] * 5)
SPEC_DIR = os.path.join(TOP, "Documentation", "netlink", "specs")
SPEC_FILES = ("smc.yaml", "smc-pnetid.yaml")
HEADER = os.path.join(TOP, "include", "uapi", "linux", "smc.h")

# Header enums that must be described by the specs
HEADER_ENUM_RE = re.compile(r"^(__)?SMC_(GEN|NLA|NETLINK|PNETID)_")

NLA_F_NESTED = 0x8000
NLA_F_NET_BYTEORDER = 0x4000
NLA_TYPE_MASK = 0x3fff
NLM_F_MULTI = 0x2
GENL_HDRLEN = 4

CTRL_ATTR_VERSION = 3
CTRL_ATTR_HDRSIZE = 4
CTRL_ATTR_MAXATTR = 5
CTRL_ATTR_OPS = 6
CTRL_ATTR_OP_ID = 1
CTRL_ATTR_OP_FLAGS = 2
GENL_ADMIN_PERM = 0x01
GENL_CMD_CAP_DO = 0x02
GENL_CMD_CAP_DUMP = 0x04
GENL_UNS_ADMIN_PERM = 0x10

FIXED_LEN = {"u8": 1, "u16": 2, "u32": 4, "u64": 8,
             "s8": 1, "s16": 2, "s32": 4, "s64": 8, "flag": 0}
VAR_INT_LEN = {"uint": (4, 8), "sint": (4, 8)}
KNOWN_TYPES = set(FIXED_LEN) | set(VAR_INT_LEN) | {
    "unused", "pad", "string", "binary", "nest", "indexed-array"}

PROBE_STRING = "SMCSPECPROBE"


def c_upper(name):
    return name.upper().replace("-", "_")


class Report:
    """Counts checks; prints and keeps the failures."""

    def __init__(self, quiet=False):
        self.passed = 0
        self.failures = []
        self.quiet = quiet

    def check(self, cond, where, msg):
        if cond:
            self.passed += 1
        else:
            self.fail(where, msg)
        return cond

    def fail(self, where, msg):
        line = f"{where}: {msg}" if where else msg
        self.failures.append(line)
        if not self.quiet:
            print(f"FAIL {line}")

    def problems(self, where, problems, checked):
        """Take (path, message) pairs from a reply walk."""
        for path, msg in problems:
            self.fail(f"{where}: {path}", msg)
        self.passed += max(checked - len(problems), 0)


# ---------------------------------------------------------------- specs

class Attr:
    def __init__(self, aset, y, value):
        self.name = y["name"]
        self.value = value
        self.type = y.get("type")
        self.cname = aset.c_prefix + c_upper(self.name)
        self.nested = y.get("nested-attributes")
        self.sub_type = y.get("sub-type")
        self.multi = bool(y.get("multi-attr", False))
        self.checks = y.get("checks", {}) or {}


class AttrSet:
    def __init__(self, family, y):
        self.name = y["name"]
        prefix = y.get("name-prefix",
                       f"{family.name}-{self.name}-a-")
        self.c_prefix = c_upper(prefix)
        self.cnt_name = c_upper(y.get("attr-cnt-name",
                                      f"__{self.c_prefix}MAX"))
        self.max_name = c_upper(y.get("attr-max-name",
                                      f"{self.c_prefix}MAX"))
        self.attrs = {}
        self.by_val = {}
        self.dups = []
        value = 1
        for ya in y.get("attributes", []):
            value = ya.get("value", value)
            a = Attr(self, ya, value)
            if value in self.by_val:
                self.dups.append((a, self.by_val[value]))
            self.attrs[a.name] = a
            self.by_val[value] = a
            value += 1

    def max_value(self):
        return max(self.by_val) if self.by_val else 0


class Op:
    def __init__(self, family, y, value):
        self.name = y["name"]
        self.value = value
        self.cname = family.op_c_prefix + c_upper(self.name)
        self.attr_set = y.get("attribute-set")
        self.flags = set(y.get("flags", []) or [])
        self.do = y["do"] if "do" in y else None
        self.dump = y["dump"] if "dump" in y else None
        if self.do is None and "do" in y:
            self.do = {}
        if self.dump is None and "dump" in y:
            self.dump = {}

    def mode(self, mode):
        return self.do if mode == "do" else self.dump

    def attrs_of(self, mode, direction):
        m = self.mode(mode) or {}
        return list((m.get(direction) or {}).get("attributes", []) or [])


class Family:
    def __init__(self, path):
        self.path = path
        with open(path) as f:
            y = yaml.safe_load(f)
        self.yaml = y
        self.name = y["name"]
        self.protocol = y.get("protocol", "genetlink")
        self.version = y.get("version", 1)
        self.c_family_name = y.get("c-family-name")
        self.c_version_name = y.get("c-version-name")
        self.consts = {}
        for d in y.get("definitions", []) or []:
            if d.get("type") == "const":
                self.consts[d["name"]] = d
        self.sets = {}
        for ys in y.get("attribute-sets", []):
            s = AttrSet(self, ys)
            self.sets[s.name] = s
        ops = y.get("operations", {}) or {}
        self.op_c_prefix = c_upper(ops.get("name-prefix",
                                           f"{self.name}-cmd-"))
        self.cmd_cnt_name = c_upper(y.get("cmd-cnt-name",
                                          f"__{self.op_c_prefix}MAX"))
        self.cmd_max_name = c_upper(y.get("cmd-max-name",
                                          f"{self.op_c_prefix}MAX"))
        self.ops = {}
        value = 1
        for yo in ops.get("list", []):
            value = yo.get("value", value)
            self.ops[yo["name"]] = Op(self, yo, value)
            value += 1

    def op_by_value(self, value):
        for op in self.ops.values():
            if op.value == value:
                return op
        return None

    def resolve_len(self, v):
        """A length of checks: a number, or a const (optionally - 1)."""
        if isinstance(v, int):
            return v
        m = re.match(r"^([0-9A-Za-z_-]+)( - 1)?$", str(v))
        if not m or m.group(1) not in self.consts:
            return None
        n = self.consts[m.group(1)].get("value")
        if not isinstance(n, int):
            return None
        return n - 1 if m.group(2) else n

    def expected_maxattr(self):
        """
        The family's maxattr: the highest attribute of the sets that
        requests carry attributes from (the kernel sizes its parsing of
        requests by it).
        """
        top = 0
        for op in self.ops.values():
            for mode in ("do", "dump"):
                if op.attrs_of(mode, "request") and op.attr_set in self.sets:
                    top = max(top, self.sets[op.attr_set].max_value())
        return top


def check_family(fam, report):
    """Consistency of one spec on its own."""
    where = os.path.basename(fam.path)
    report.check(fam.protocol == "genetlink-legacy", where,
                 f"protocol {fam.protocol}, expected genetlink-legacy")
    cnames = {}

    def cname(name, what):
        report.check(name not in cnames, where,
                     f"C name {name} of {what} also names {cnames.get(name)}")
        cnames.setdefault(name, what)

    for s in fam.sets.values():
        for a, other in s.dups:
            report.fail(where, f"set {s.name}: {a.name} and {other.name} "
                               f"both have value {a.value}")
        cname(s.cnt_name, f"count of set {s.name}")
        cname(s.max_name, f"max of set {s.name}")
        for a in s.attrs.values():
            w = f"{where}: {s.name}/{a.name}"
            cname(a.cname, f"attribute {s.name}/{a.name}")
            if not report.check(a.type in KNOWN_TYPES, w,
                                f"unknown type {a.type}"):
                continue
            if a.type == "nest" or a.sub_type == "nest":
                report.check(a.nested in fam.sets, w,
                             f"nested-attributes {a.nested} is no set")
            elif a.type == "indexed-array":
                report.check(a.sub_type in KNOWN_TYPES - {"unused", "pad"},
                             w, f"sub-type {a.sub_type} of an indexed-array")
            else:
                report.check(a.nested is None, w,
                             "nested-attributes on a non-nest")
            for k in ("max-len", "min-len", "exact-len"):
                if k in a.checks:
                    report.check(fam.resolve_len(a.checks[k]) is not None,
                                 w, f"{k} {a.checks[k]} does not resolve")
        # u64 attributes may be padded: the set needs a pad attribute
        if any(a.type == "u64" for a in s.attrs.values()):
            report.check(any(a.type == "pad" for a in s.attrs.values()),
                         f"{where}: {s.name}", "u64 without a pad attribute")
    cname(fam.cmd_cnt_name, "count of commands")
    cname(fam.cmd_max_name, "max of commands")
    seen = {}
    for op in fam.ops.values():
        w = f"{where}: {op.name}"
        cname(op.cname, f"operation {op.name}")
        report.check(op.value not in seen, w,
                     f"value {op.value} also used by {seen.get(op.value)}")
        seen.setdefault(op.value, op.name)
        report.check(op.do is not None or op.dump is not None, w,
                     "neither do nor dump")
        report.check(op.flags <= {"admin-perm", "uns-admin-perm"}, w,
                     f"unknown flags {sorted(op.flags)}")
        if not report.check(op.attr_set in fam.sets, w,
                            f"attribute-set {op.attr_set} is no set"):
            continue
        s = fam.sets[op.attr_set]
        for mode in ("do", "dump"):
            for direction in ("request", "reply"):
                for n in op.attrs_of(mode, direction):
                    report.check(n in s.attrs, w,
                                 f"{mode} {direction}: {n} is not in set "
                                 f"{s.name}")
    return cnames


def load_families(paths, report):
    fams = []
    for p in paths:
        try:
            fams.append(Family(p))
        except (OSError, yaml.YAMLError, KeyError, TypeError) as e:
            report.fail(p, f"cannot load: {e!r}")
    return fams


# ----------------------------------------------------------- C header

_TOKEN = re.compile(r"\s*(0[xX][0-9a-fA-F]+[uUlL]*|\d+[uUlL]*|[A-Za-z_]\w*"
                    r"|<<|>>|\S)")
_OPS = {ast.Add: lambda a, b: a + b, ast.Sub: lambda a, b: a - b,
        ast.Mult: lambda a, b: a * b, ast.FloorDiv: lambda a, b: a // b,
        ast.LShift: lambda a, b: a << b, ast.RShift: lambda a, b: a >> b,
        ast.BitOr: lambda a, b: a | b, ast.BitAnd: lambda a, b: a & b,
        ast.BitXor: lambda a, b: a ^ b}
_UOPS = {ast.USub: lambda a: -a, ast.UAdd: lambda a: a,
         ast.Invert: lambda a: ~a}


def c_int(tok):
    tok = tok.rstrip("uUlL")
    if tok[:2] in ("0x", "0X"):
        return int(tok, 16)
    if len(tok) > 1 and tok[0] == "0":
        return int(tok, 8)
    return int(tok)


def c_eval(expr, env):
    """An integer constant expression of C, names taken from env."""
    out = []
    pos = 0
    expr = expr.strip()
    while pos < len(expr):
        m = _TOKEN.match(expr, pos)
        if not m:
            break
        tok = m.group(1)
        pos = m.end()
        if tok[0].isdigit():
            out.append(str(c_int(tok)))
        elif tok[0].isalpha() or tok[0] == "_":
            if tok not in env or not isinstance(env[tok], int):
                raise ValueError(f"unknown name {tok}")
            out.append(f"({env[tok]})")
        elif tok == "/":
            out.append("//")
        else:
            out.append(tok)

    def ev(n):
        if isinstance(n, ast.Expression):
            return ev(n.body)
        if isinstance(n, ast.Constant) and isinstance(n.value, int):
            return n.value
        if isinstance(n, ast.BinOp) and type(n.op) in _OPS:
            return _OPS[type(n.op)](ev(n.left), ev(n.right))
        if isinstance(n, ast.UnaryOp) and type(n.op) in _UOPS:
            return _UOPS[type(n.op)](ev(n.operand))
        raise ValueError(f"not a constant expression: {expr}")

    return ev(ast.parse(" ".join(out), mode="eval"))


def parse_c_header(text):
    """
    The enums and #defines of a C header: a list of enums, each a list
    of (name, value) in order, and a dict of defines (int, str, or the
    raw text when neither).
    """
    text = re.sub(r"/\*.*?\*/", " ", text, flags=re.S)
    text = re.sub(r"//[^\n]*", "", text)
    text = re.sub(r"\\\n", " ", text)
    env = {}
    defines = {}
    enums = []
    # defines and enums in the order they appear, so one may use another
    item = re.compile(r"^[ \t]*#[ \t]*define[ \t]+(\w+)[ \t]+([^\n]+)$"
                      r"|\benum\b\s*\w*\s*\{(.*?)\}", re.M | re.S)
    for m in item.finditer(text):
        if m.group(1):
            name, val = m.group(1), m.group(2).strip()
            s = re.fullmatch(r'"((?:[^"\\]|\\.)*)"', val)
            if s:
                defines[name] = s.group(1)
                continue
            try:
                defines[name] = env[name] = c_eval(val, env)
            except (ValueError, SyntaxError):
                defines[name] = val
            continue
        entries = []
        value = -1
        for e in m.group(3).split(","):
            e = e.strip()
            if not e:
                continue
            em = re.fullmatch(r"(\w+)\s*(?:=\s*(.+))?", e, re.S)
            if not em:
                raise ValueError(f"cannot parse enum entry '{e}'")
            value = c_eval(em.group(2), env) if em.group(2) else value + 1
            env[em.group(1)] = value
            entries.append((em.group(1), value))
        enums.append(entries)
    return enums, defines


def spec_c_names(fams):
    """C name -> (value, group, family) for what the header must have."""
    names = {}
    for fam in fams:
        for s in fam.sets.values():
            group = (fam.name, "set " + s.name)
            for a in s.attrs.values():
                names[a.cname] = (a.value, group, fam)
            top = s.max_value()
            names[s.cnt_name] = (top + 1, group, fam)
            names[s.max_name] = (top, group, fam)
        group = (fam.name, "operations")
        for op in fam.ops.values():
            names[op.cname] = (op.value, group, fam)
    return names


def check_header(fams, text, report, hname="smc.h"):
    try:
        enums, defines = parse_c_header(text)
    except (ValueError, SyntaxError) as e:
        report.fail(hname, f"cannot parse: {e}")
        return
    names = spec_c_names(fams)
    in_header = set()
    for entries in enums:
        if not any(HEADER_ENUM_RE.match(n) for n, _ in entries):
            continue
        groups = set()
        for n, v in entries:
            in_header.add(n)
            where = f"{hname}: {n}"
            if not report.check(n in names, where,
                                f"= {v} is not in the specs"):
                continue
            sv, group, _ = names[n]
            groups.add(group)
            report.check(sv == v, where, f"= {v} in the header, {sv} in "
                                         f"the spec ({group[0]} {group[1]})")
        head = f"{hname}: enum of {entries[0][0]}"
        if not report.check(len(groups) <= 1, head,
                            f"spread over {sorted(groups)} in the specs"):
            continue
        if groups:
            group = groups.pop()
            extra = sorted(n for n, (_, g, _) in names.items()
                           if g == group and n not in dict(entries))
            report.check(not extra, head,
                         f"the spec's {group[1]} ({group[0]}) also has "
                         f"{', '.join(extra)}")
    for n, (v, group, fam) in sorted(names.items()):
        if n not in in_header:
            report.fail(os.path.basename(fam.path),
                        f"{n} = {v} ({group[1]}) is in no enum of {hname}")
    for fam in fams:
        w = os.path.basename(fam.path)
        if fam.c_family_name:
            d = c_upper(fam.c_family_name)
            report.check(defines.get(d) == fam.name, w,
                         f"{d} is {defines.get(d)!r} in {hname}, "
                         f"family name {fam.name!r}")
        if fam.c_version_name:
            d = c_upper(fam.c_version_name)
            report.check(defines.get(d) == fam.version, w,
                         f"{d} is {defines.get(d)!r} in {hname}, "
                         f"version {fam.version}")
        for c in fam.consts.values():
            if os.path.basename(c.get("header", "")) != hname:
                continue
            d = c_upper(c["name"])
            report.check(defines.get(d) == c.get("value"), w,
                         f"const {d} is {defines.get(d)!r} in {hname}, "
                         f"{c.get('value')!r} in the spec")


# ------------------------------------------------------ reply walking

def split_attrs(buf):
    """(type, payload) pairs of a run of attributes, and an error or None."""
    out = []
    off = 0
    while off < len(buf):
        if len(buf) - off < 4:
            return out, f"{len(buf) - off} stray bytes after the attributes"
        alen, atype = struct.unpack_from("=HH", buf, off)
        if alen < 4 or off + alen > len(buf):
            return out, f"attribute {atype & NLA_TYPE_MASK} at offset " \
                        f"{off}: length {alen} does not fit in {len(buf)}"
        out.append((atype, bytes(buf[off + 4:off + alen])))
        off += (alen + 3) & ~3
    return out, None


def payload_problem(fam, a, data, t=None):
    """What is wrong with the payload of attribute a (taken as type t,
    by default its own), or None."""
    n = len(data)
    t = t or a.type
    if t in FIXED_LEN:
        if n != FIXED_LEN[t]:
            return f"{t} with {n} bytes"
    elif t in VAR_INT_LEN:
        if n not in VAR_INT_LEN[t]:
            return f"{t} with {n} bytes (4 or 8)"
    elif t == "string":
        if n == 0 or data[-1] != 0:
            return f"string of {n} bytes without its NUL"
        if 0 in data[:-1]:
            return f"string with a NUL inside: {data!r}"
        top = fam.resolve_len(a.checks.get("max-len"))
        if top is not None and n - 1 > top:
            return f"string of {n - 1} characters, at most {top}"
    elif t == "binary":
        for k, ok in (("exact-len", lambda m: n == m),
                      ("min-len", lambda m: n >= m),
                      ("max-len", lambda m: n <= m)):
            m = fam.resolve_len(a.checks.get(k))
            if m is not None and not ok(m):
                return f"binary of {n} bytes, {k} {m}"
    elif t not in ("pad", "nest", "indexed-array"):
        return f"type {t} cannot be on the wire"
    return None


def walk_attrs(fam, set_name, buf, path, problems, seen):
    """
    Check a run of attributes of set set_name, recursing into nests.
    Appends (path, message) to problems; counts the attributes checked
    per C name in seen.  Returns the attributes as (Attr, payload).
    """
    aset = fam.sets.get(set_name)
    if aset is None:
        problems.append((path or "/", f"set {set_name} is not in the spec"))
        return []
    attrs, err = split_attrs(buf)
    if err:
        problems.append((path or "/", err))
    found = []
    count = {}
    for raw_type, data in attrs:
        t = raw_type & NLA_TYPE_MASK
        a = aset.by_val.get(t)
        if a is None or a.type == "unused":
            name = a.cname if a else f"#{t}"
            problems.append((f"{path}/{name}".lstrip("/"),
                             f"attribute {t} ({len(data)} bytes) is not in "
                             f"set {set_name}"))
            continue
        p = f"{path}/{a.cname}".lstrip("/")
        seen[a.cname] = seen.get(a.cname, 0) + 1
        count[t] = count.get(t, 0) + 1
        if count[t] == 2 and not a.multi and a.type != "pad":
            problems.append((p, "repeated, but not multi-attr"))
        found.append((a, data))
        msg = payload_problem(fam, a, data)
        if msg:
            problems.append((p, msg))
        if a.type == "nest":
            walk_attrs(fam, a.nested, data, p, problems, seen)
        elif a.type == "indexed-array":
            walk_array(fam, a, data, p, problems, seen)
        elif raw_type & NLA_F_NESTED:
            problems.append((p, f"NLA_F_NESTED on a {a.type}"))
    return found


def walk_array(fam, a, buf, path, problems, seen):
    """The elements of an indexed-array: attribute types are indexes,
    payloads are of the sub-type."""
    elems, err = split_attrs(buf)
    if err:
        problems.append((path, err))
    for raw_type, data in elems:
        p = f"{path}/[{raw_type & NLA_TYPE_MASK}]"
        msg = payload_problem(fam, a, data, a.sub_type)
        if msg:
            problems.append((p, msg))
        if a.sub_type == "nest":
            walk_attrs(fam, a.nested, data, p, problems, seen)


def reply_cmds(fam, op, mode):
    """Commands a reply to op may carry: its own, and those of operations
    whose replies are a part of it (get-link-smcr sends link groups too)."""
    mine = set(op.attrs_of(mode, "reply"))
    cmds = {op.value}
    for o in fam.ops.values():
        theirs = set(o.attrs_of("dump", "reply")) | \
            set(o.attrs_of("do", "reply"))
        if o.attr_set == op.attr_set and theirs and theirs <= mine:
            cmds.add(o.value)
    return cmds


def check_reply(fam, op, mode, msgs, seen):
    """
    Check the data messages of a reply: each a tuple (nlmsg_flags,
    genl_cmd, genl_version, attribute bytes).  Returns (problems, number
    of things checked).
    """
    problems = []
    checked = 0
    allowed = op.attrs_of(mode, "reply")
    cmds = reply_cmds(fam, op, mode)
    for i, (flags, cmd, version, payload) in enumerate(msgs):
        where = f"message {i}"
        checked += 3
        if cmd not in cmds:
            problems.append((where, f"genl command {cmd}, expected "
                                    f"{sorted(cmds)}"))
        if version != fam.version:
            problems.append((where, f"genl version {version}, expected "
                                    f"{fam.version}"))
        if mode == "dump" and not flags & NLM_F_MULTI:
            problems.append((where, "dump message without NLM_F_MULTI"))
        sub = {}
        found = walk_attrs(fam, op.attr_set, payload, "", problems, sub)
        for a, _ in found:
            if a.name not in allowed and a.type != "pad":
                problems.append((a.cname, f"not a reply attribute of "
                                          f"{op.name} ({mode})"))
        for k, v in sub.items():
            seen[k] = seen.get(k, 0) + v
        checked += sum(sub.values())
    return problems, checked


# -------------------------------------------------------- nlctrl info

def parse_family_info(payload):
    """The attributes of a CTRL_CMD_GETFAMILY reply, as a dict."""
    info = {"ops": {}}
    attrs, err = split_attrs(payload)
    if err:
        info["error"] = err
    for t, data in attrs:
        t &= NLA_TYPE_MASK
        if t == raw.CTRL_ATTR_FAMILY_ID and len(data) >= 2:
            info["id"] = struct.unpack_from("=H", data)[0]
        elif t == raw.CTRL_ATTR_FAMILY_NAME:
            info["name"] = data.split(b"\0")[0].decode(errors="replace")
        elif t in (CTRL_ATTR_VERSION, CTRL_ATTR_HDRSIZE,
                   CTRL_ATTR_MAXATTR) and len(data) == 4:
            key = {CTRL_ATTR_VERSION: "version", CTRL_ATTR_HDRSIZE:
                   "hdrsize", CTRL_ATTR_MAXATTR: "maxattr"}[t]
            info[key] = struct.unpack("=I", data)[0]
        elif t == CTRL_ATTR_OPS:
            ops, _ = split_attrs(data)
            for _, od in ops:
                fields = {}
                for ft, fd in split_attrs(od)[0]:
                    if len(fd) == 4:
                        fields[ft & NLA_TYPE_MASK] = \
                            struct.unpack("=I", fd)[0]
                if CTRL_ATTR_OP_ID in fields:
                    info["ops"][fields[CTRL_ATTR_OP_ID]] = \
                        fields.get(CTRL_ATTR_OP_FLAGS, 0)
    return info


def compare_family_info(fam, info):
    """Differences between nlctrl's view of a family and its spec:
    (what, message) pairs, and the number of things compared."""
    problems = []
    checked = 0
    for key, want in (("version", fam.version), ("hdrsize", 0),
                      ("maxattr", fam.expected_maxattr())):
        checked += 1
        if info.get(key) != want:
            problems.append((key, f"{info.get(key)} in the kernel, "
                                  f"{want} by the spec"))
    kops = info.get("ops", {})
    for op in fam.ops.values():
        checked += 1
        if op.value not in kops:
            problems.append((op.name, f"command {op.value} is not "
                                      f"registered in the kernel"))
            continue
        flags = kops[op.value]
        for bit, want, what in (
                (GENL_CMD_CAP_DO, op.do is not None, "do"),
                (GENL_CMD_CAP_DUMP, op.dump is not None, "dump"),
                (GENL_ADMIN_PERM, "admin-perm" in op.flags, "admin-perm"),
                (GENL_UNS_ADMIN_PERM, "uns-admin-perm" in op.flags,
                 "uns-admin-perm")):
            checked += 1
            have = bool(flags & bit)
            if have != want:
                problems.append((op.name, f"{what} is "
                                 f"{'set' if have else 'not set'} in the "
                                 f"kernel (flags {flags:#x}), "
                                 f"{'set' if want else 'not set'} "
                                 f"in the spec"))
    for cmd in sorted(set(kops) - {op.value for op in fam.ops.values()}):
        checked += 1
        problems.append((f"command {cmd}", "registered in the kernel, "
                                           "not in the spec"))
    return problems, checked


# --------------------------------------------------------------- live

class Genl:
    """A NETLINK_GENERIC socket that collects whole replies."""

    def __init__(self):
        self.sock = socket.socket(socket.AF_NETLINK, socket.SOCK_RAW,
                                  raw.NETLINK_GENERIC)
        self.sock.bind((0, 0))
        self.sock.settimeout(10)
        self.seq = 100

    def close(self):
        self.sock.close()

    def transact(self, ntype, cmd, version, dump, attrs=b""):
        """
        Send a request; return (errno, data messages), each message as
        (nlmsg_flags, genl_cmd, genl_version, attribute bytes).  A do
        asks for an ACK and ends with it; a dump ends with NLMSG_DONE.
        """
        self.seq += 1
        seq = self.seq
        flags = raw.NLM_F_REQUEST | (raw.NLM_F_DUMP if dump
                                     else raw.NLM_F_ACK)
        body = struct.pack("=BBH", cmd, version, 0) + attrs
        self.sock.send(struct.pack("=IHHII", 16 + len(body), ntype, flags,
                                   seq, 0) + body)
        msgs = []
        while True:
            data = self.sock.recv(1 << 20)
            off = 0
            while off + 16 <= len(data):
                length, mtype, mflags, mseq, _ = \
                    struct.unpack_from("=IHHII", data, off)
                if length < 16:
                    return -errno.EPROTO, msgs
                body = data[off + 16:off + length]
                off += (length + 3) & ~3
                if mseq != seq:
                    continue
                if mtype == raw.NLMSG_ERROR:
                    return struct.unpack_from("=i", body)[0], msgs
                if mtype == raw.NLMSG_DONE:
                    if dump:
                        err = struct.unpack_from("=i", body)[0] \
                            if len(body) >= 4 else 0
                        return err, msgs
                    continue        # a do's multipart reply; the ACK follows
                if mtype != ntype:
                    return -errno.EPROTO, msgs
                if len(body) < GENL_HDRLEN:
                    return -errno.EPROTO, msgs
                gcmd, gver, _ = struct.unpack_from("=BBH", body)
                msgs.append((mflags, gcmd, gver, body[GENL_HDRLEN:]))

    def family(self, name):
        attrs = raw.attr(raw.CTRL_ATTR_FAMILY_NAME, name.encode() + b"\0")
        err, msgs = self.transact(raw.GENL_ID_CTRL, raw.CTRL_CMD_GETFAMILY,
                                  1, False, attrs)
        if err or not msgs:
            return err or -errno.ENOENT, None
        return 0, parse_family_info(msgs[0][3])


def errname(err):
    if -err == errno.EOPNOTSUPP:
        return "EOPNOTSUPP"
    return errno.errorcode.get(-err, str(err))


def probe_request(fam, op, found):
    """Attributes for a do request: a string for each string attribute,
    taken from what a dump of the same operation showed, if anything."""
    out = b""
    s = fam.sets[op.attr_set]
    for n in op.attrs_of("do", "request"):
        a = s.attrs[n]
        if a.type != "string":
            continue
        value = found.get(a.cname, PROBE_STRING.encode() + b"\0")
        out += raw.attr(a.value, value)
    return out


def live_family(nl, fam, report, seen, verbose):
    tag = fam.name
    err, info = nl.family(fam.name)
    if not report.check(err == 0, tag, f"cannot resolve the family: "
                                       f"{errname(err)}"):
        return
    problems, checked = compare_family_info(fam, info)
    report.problems(f"{tag} nlctrl", problems, checked)
    for op in fam.ops.values():
        if op.value not in info["ops"] or op.attr_set not in fam.sets:
            continue        # reported already
        found = {}
        for mode in ("dump", "do"):
            if op.mode(mode) is None:
                continue
            if mode == "do" and "reply" not in op.do:
                continue    # an action: not sent
            where = f"{tag} {op.name} {mode}"
            attrs = probe_request(fam, op, found) if mode == "do" else b""
            try:
                err, msgs = nl.transact(info["id"], op.value, fam.version,
                                        mode == "dump", attrs)
            except OSError as e:
                report.fail(where, f"netlink: {e!r}")
                continue
            if not report.check(err == 0, where, f"answered {errname(err)}"
                                f" after {len(msgs)} messages"):
                continue
            problems, checked = check_reply(fam, op, mode, msgs, seen)
            report.problems(where, problems, checked)
            for _, _, _, payload in msgs:
                for t, data in split_attrs(payload)[0]:
                    a = fam.sets[op.attr_set].by_val.get(t & NLA_TYPE_MASK)
                    if a is not None:
                        found.setdefault(a.cname, data)
            if verbose:
                print(f"# {where}: {len(msgs)} messages, "
                      f"{len(problems)} problems")


def live(fams, report, verbose):
    seen = {}
    try:
        nl = Genl()
    except OSError as e:
        report.fail("live", f"no NETLINK_GENERIC socket: {e}")
        return
    try:
        for fam in fams:
            live_family(nl, fam, report, seen, verbose)
    except (OSError, socket.timeout) as e:
        report.fail("live", f"netlink: {e!r}")
    finally:
        nl.close()
    total = sorted(a.cname for fam in fams for s in fam.sets.values()
                   for a in s.attrs.values()
                   if a.type not in ("unused", "pad"))
    shown = [n for n in total if n in seen]
    print(f"# live: {len(shown)} of {len(total)} attributes of the specs "
          f"were in the replies")
    if verbose:
        print("# not seen: " + " ".join(n for n in total if n not in seen))


# ---------------------------------------------------------- self-test

def nest(atype, *parts):
    return raw.attr(atype | NLA_F_NESTED, b"".join(parts))


def self_test(fams, report, header=HEADER):
    """Feed the checker crafted input and expect its verdicts."""
    try:
        crafted(fams, report, header)
    except KeyError as e:
        report.fail("self-test", f"the spec lacks {e}")


def crafted(fams, report, header):
    def expect(cond, what):
        report.check(cond, "self-test", what)

    # the C parser
    enums, defines = parse_c_header("""
        #define BASE 0x10	/* a comment, { } ; */
        #define NAME "SMC_X"
        enum { A, B, C = 5, D, E = BASE + 1, F, /* G, */ H = (1 << 3) };
        enum e { X_UNSPEC, X_ONE, __X_MAX, X_MAX = __X_MAX - 1 };
        """)
    expect(enums[0] == [("A", 0), ("B", 1), ("C", 5), ("D", 6), ("E", 17),
                        ("F", 18), ("H", 8)], f"C enum parser: {enums[0]}")
    expect(enums[1][-1] == ("X_MAX", 1), f"C enum parser: {enums[1]}")
    expect(defines.get("NAME") == "SMC_X" and defines.get("BASE") == 16,
           f"C define parser: {defines}")

    gen = next((f for f in fams if f.name == "SMC_GEN_NETLINK"), None)
    if gen is None:
        report.fail("self-test", "needs the SMC_GEN_NETLINK spec")
        return
    s_gen = gen.sets["gen"]
    s_dev = gen.sets["dev"]
    s_port = gen.sets["dev-port"]
    s_cq = gen.sets["cq"]
    top = s_gen.attrs["dev-smcr"].value
    dev = s_dev.attrs

    def u8(a, v):
        return raw.attr(a.value, struct.pack("=B", v))

    def u32(a, v):
        return raw.attr(a.value, struct.pack("=I", v))

    def u64(a, v):
        return raw.attr(a.value, struct.pack("=Q", v))

    def s(a, v):
        return raw.attr(a.value, v.encode() + b"\0")

    def cq(v):
        return nest(dev["cq"].value, u32(s_cq.attrs["vector"], v),
                    u32(s_cq.attrs["qps"], 2),
                    raw.attr(s_cq.attrs["pad"].value, b""),
                    u64(s_cq.attrs["completions"], 1 << 40))

    port = nest(dev["port"].value, u8(s_port.attrs["pnet-usr"], 1),
                s(s_port.attrs["pnetid"], "NET1"),
                u32(s_port.attrs["netdev"], 3))
    good = nest(top, u8(dev["is-crit"], 0), u32(dev["pci-fid"], 0),
                s(dev["ib-name"], "rxe0"), port, cq(0), cq(1))
    op = gen.ops["get-dev-smcr"]
    cmd = op.value
    problems, _ = check_reply(gen, op, "dump",
                              [(NLM_F_MULTI, cmd, 1, good)], {})
    expect(not problems, f"a good reply passes: {problems}")

    # an attribute not in the spec, a u32 of 2 bytes, more of the kind
    bad_port = nest(dev["port"].value, s(s_port.attrs["pnetid"], "NET1"),
                    raw.attr(42, b"\1\2\3\4"))
    bad = nest(top,
               u8(dev["is-crit"], 0),
               raw.attr(dev["pci-fid"].value, b"\0\0"),
               raw.attr(99, b"\0"),
               raw.attr(dev["ib-name"].value, b"rxe0"),
               raw.attr(dev["pci-id"].value, b"0000:00\0:01.0\0"),
               bad_port,
               raw.attr(dev["port2"].value, b"\5\0\0"),
               cq(0),
               raw.attr(dev["is-crit"].value, b"\1"))
    bad += raw.attr(s_gen.attrs["stats"].value | NLA_F_NESTED, b"")
    bad += u8(s_gen.attrs["unspec"], 1)
    problems, _ = check_reply(gen, op, "dump",
                              [(NLM_F_MULTI, cmd, 1, bad)], {})
    want = [
        ("SMC_GEN_DEV_SMCR/SMC_NLA_DEV_PCI_FID", "u32 with 2 bytes"),
        ("SMC_GEN_DEV_SMCR/#99", "attribute 99 (1 bytes) is not in set dev"),
        ("SMC_GEN_DEV_SMCR/SMC_NLA_DEV_IB_NAME", "without its NUL"),
        ("SMC_GEN_DEV_SMCR/SMC_NLA_DEV_PCI_ID", "with a NUL inside"),
        ("SMC_GEN_DEV_SMCR/SMC_NLA_DEV_PORT/#42", "not in set dev-port"),
        ("SMC_GEN_DEV_SMCR/SMC_NLA_DEV_PORT2", "3 stray bytes"),
        ("SMC_GEN_DEV_SMCR/SMC_NLA_DEV_IS_CRIT", "repeated"),
        ("SMC_GEN_STATS", "not a reply attribute of get-dev-smcr"),
        ("SMC_GEN_UNSPEC", "attribute 0 (1 bytes) is not in set gen"),
    ]

    def matches(pr, w):
        return pr[0] == w[0] and w[1] in pr[1]

    for w in want:
        expect(any(matches(pr, w) for pr in problems),
               f"bad reply: {w[0]}: '{w[1]}' is caught: {problems}")
    for pr in problems:
        expect(any(matches(pr, w) for w in want),
               f"bad reply: no verdict beyond the expected: {pr}")

    # message level: command, version, NLM_F_MULTI
    problems, _ = check_reply(gen, op, "dump", [(0, cmd + 1, 2, good)], {})
    expect(len(problems) == 3, f"bad message header: {problems}")
    # get-link-smcr may send link groups, get-lgr-smcr may not send links
    link = gen.ops["get-link-smcr"]
    lgr = gen.ops["get-lgr-smcr"]
    expect(reply_cmds(gen, link, "dump") == {lgr.value, link.value} and
           reply_cmds(gen, lgr, "dump") == {lgr.value},
           "reply commands of get-link-smcr and get-lgr-smcr")

    # uint of 4 and 8 bytes, not 6
    lgr_r = gen.sets["lgr-r"].attrs
    ok = nest(s_gen.attrs["lgr-smcr"].value,
              u32(lgr_r["sndbuf-alloc"], 1), u64(lgr_r["rmb-alloc"], 1))
    no = nest(s_gen.attrs["lgr-smcr"].value,
              raw.attr(lgr_r["rmb-alloc"].value, b"\0" * 6))
    p1, _ = check_reply(gen, lgr, "dump", [(NLM_F_MULTI, lgr.value, 1,
                                            ok)], {})
    p2, _ = check_reply(gen, lgr, "dump", [(NLM_F_MULTI, lgr.value, 1,
                                            no)], {})
    expect(not p1 and len(p2) == 1 and "uint" in p2[0][1],
           f"uint lengths: {p1} {p2}")
    # a truncated attribute
    p3, _ = check_reply(gen, lgr, "dump", [(NLM_F_MULTI, lgr.value, 1,
                                            ok[:-2])], {})
    expect(any("does not fit" in m or "stray" in m for _, m in p3),
           f"truncated reply: {p3}")

    # nlctrl: the reply parser and the comparison of operations
    ops = b""
    for i, o in enumerate(gen.ops.values()):
        if o.name == "get-stats":
            continue                        # missing in "the kernel"
        flags = (GENL_CMD_CAP_DO if o.do is not None else 0) | \
            (GENL_CMD_CAP_DUMP if o.dump is not None else 0) | \
            (GENL_ADMIN_PERM if "admin-perm" in o.flags else 0)
        if o.name == "add-ueid":
            flags &= ~GENL_ADMIN_PERM       # lost its permission
        ops += nest(i + 1,
                    raw.attr(CTRL_ATTR_OP_ID, struct.pack("=I", o.value)),
                    raw.attr(CTRL_ATTR_OP_FLAGS, struct.pack("=I", flags)))
    ops += nest(40, raw.attr(CTRL_ATTR_OP_ID, struct.pack("=I", 77)),
                raw.attr(CTRL_ATTR_OP_FLAGS,
                         struct.pack("=I", GENL_CMD_CAP_DO)))
    ctrl = (raw.attr(raw.CTRL_ATTR_FAMILY_ID, struct.pack("=H", 33)) +
            raw.attr(raw.CTRL_ATTR_FAMILY_NAME, gen.name.encode() + b"\0") +
            raw.attr(CTRL_ATTR_VERSION, struct.pack("=I", 1)) +
            raw.attr(CTRL_ATTR_HDRSIZE, struct.pack("=I", 0)) +
            raw.attr(CTRL_ATTR_MAXATTR, struct.pack("=I", 1)) +
            raw.attr(CTRL_ATTR_OPS, ops))
    info = parse_family_info(ctrl)
    expect(info.get("id") == 33 and info.get("name") == gen.name and
           len(info["ops"]) == len(gen.ops), f"nlctrl parser: {info}")
    problems, _ = compare_family_info(gen, info)
    got = sorted(w for w, _ in problems)
    expect(got == ["add-ueid", "command 77", "get-stats"],
           f"nlctrl comparison: {problems}")
    expect(gen.expected_maxattr() == 1, "maxattr of SMC_GEN_NETLINK is 1")

    # the receive loop, on a fake socket
    class FakeSock:
        def __init__(self, script):
            self.script = script
            self.out = []

        def send(self, msg):
            seq = struct.unpack_from("=I", msg, 8)[0]
            self.out = self.script(seq)

        def recv(self, _):
            return self.out.pop(0)

    def nlmsg(mtype, flags, seq, body):
        return struct.pack("=IHHII", 16 + len(body), mtype, flags, seq,
                           0) + body

    def gmsg(seq, payload, cmd=1):
        return nlmsg(30, NLM_F_MULTI, seq,
                     struct.pack("=BBH", cmd, 1, 0) + payload)

    def err(seq, e):
        return nlmsg(raw.NLMSG_ERROR, 0, seq, struct.pack("=i", e) +
                     b"\0" * 16)

    nl = Genl.__new__(Genl)
    nl.seq = 7
    # a do: a stale answer, a multipart reply closed by DONE, then the ACK
    nl.sock = FakeSock(lambda q: [
        err(q - 1, -1) + gmsg(q, s(s_port.attrs["pnetid"], "A")) +
        nlmsg(raw.NLMSG_DONE, NLM_F_MULTI, q, b""), err(q, 0)])
    got = nl.transact(30, 1, 1, False)
    expect(got[0] == 0 and len(got[1]) == 1 and got[1][0][1] == 1,
           f"receive a do: {got}")
    # a dump that fails on the way says so in its DONE
    nl.sock = FakeSock(lambda q: [
        gmsg(q, b""), gmsg(q, b"") +
        nlmsg(raw.NLMSG_DONE, NLM_F_MULTI, q, struct.pack("=i", -22))])
    got = nl.transact(30, 1, 1, True)
    expect(got[0] == -22 and len(got[1]) == 2, f"receive a dump: {got}")
    # a dump refused at once
    nl.sock = FakeSock(lambda q: [err(q, -errno.EOPNOTSUPP)])
    got = nl.transact(30, 1, 1, True)
    expect(got == (-errno.EOPNOTSUPP, []), f"receive a refusal: {got}")

    # the header check finds a changed value, a missing and an extra name
    try:
        with open(header) as f:
            text = f.read()
    except OSError:
        report.fail("self-test", f"needs {header}")
        return
    quiet = Report(quiet=True)
    check_header(fams, text, quiet)
    expect(not quiet.failures, f"the header check passes: {quiet.failures}")
    changed = text.replace("SMC_NLA_SYS_SEID,", "SMC_NLA_SYS_SEID = 9,", 1)
    changed = changed.replace("\tSMC_NLA_CQ_PAD,", "", 1)
    changed = changed.replace("SMC_NLA_HS_LIMITATION_ENABLED,",
                              "SMC_NLA_HS_LIMITATION_ENABLED,\n"
                              "\tSMC_NLA_HS_LIMITATION_NEW,", 1)
    quiet = Report(quiet=True)
    check_header(fams, changed, quiet)
    text_all = "\n".join(quiet.failures)
    for needle in ("SMC_NLA_SYS_SEID: = 9 in the header, 5 in the spec",
                   "SMC_NLA_SYS_IS_SMCR_V2: = 10 in the header",
                   "SMC_NLA_CQ_PAD = 4 (set cq) is in no enum",
                   "set cq (SMC_GEN_NETLINK) also has SMC_NLA_CQ_PAD",
                   "SMC_NLA_HS_LIMITATION_NEW: = 2 is not in the specs",
                   "__SMC_NLA_HS_LIMITATION_MAX: = 3 in the header"):
        expect(needle in text_all, f"header check catches '{needle}': "
                                   f"{quiet.failures}")


# --------------------------------------------------------------- main

def main():
    ap = argparse.ArgumentParser(
        description="Check the AF_SMC netlink specs against smc.h and, "
                    "with --live, the running kernel.")
    ap.add_argument("specs", nargs="*", help="spec files (default: "
                    "smc.yaml and smc-pnetid.yaml of --specs)")
    ap.add_argument("--specs", dest="spec_dir", default=SPEC_DIR,
                    help="directory of the specs")
    ap.add_argument("--header", default=HEADER, help="the uAPI smc.h")
    ap.add_argument("--live", action="store_true",
                    help="also check the running kernel")
    ap.add_argument("--self-test", action="store_true",
                    help="check the checker on crafted input")
    ap.add_argument("-v", "--verbose", action="store_true")
    args = ap.parse_args()

    report = Report()
    paths = args.specs or [os.path.join(args.spec_dir, f)
                           for f in SPEC_FILES]
    fams = load_families(paths, report)
    for fam in fams:
        check_family(fam, report)
    if args.self_test:
        self_test(fams, report, args.header)
    elif os.path.exists(args.header):
        with open(args.header) as f:
            check_header(fams, f.read(), report,
                         os.path.basename(args.header))
    elif args.live:
        print(f"# {args.header} not found: header check skipped")
    else:
        report.fail(args.header, "not found")
    if args.live and not args.self_test:
        live(fams, report, args.verbose)

    print(f"smc_nl_spec: {report.passed} passed, "
          f"{len(report.failures)} failed")
    return 1 if report.failures else 0


if __name__ == "__main__":
    sys.exit(main())
