#!/bin/sh
# Generates the tracer's MPI wrappers and src/trace's MPI call classes from
# the one table of MPI calls, src/trace/mpi_calls.def (its header explains
# the format):
#   src/tracer/mpi_regions.h   UPT_MPI_REGIONS, every wrapped row in table order
#   src/tracer/mpi_c_gen.c     the C wrappers of the generated rows
#   src/tracer/mpi_f_gen.c     their Fortran twins, under all four spellings
#   src/trace/mpi_classes.h    UP_MPI_CLASSES, the classes of each row with FLAGS
# Plain POSIX sh and awk: `make check-generated` (part of `make test`) runs
# it on a fresh machine and fails when the committed files are out of date.
#
#   tools/dev/gen-mpi-wrappers.sh [OUTDIR]     write the four files under OUTDIR
#                                              (tracer/..., trace/...; default src)
#   tools/dev/gen-mpi-wrappers.sh --list       "NAME CLASS [cptr]" per generated row
#                                              (tests/tracer/twins.sh covers each)
# TABLE=path overrides the table (the tests use it to try a wrong rule).
set -eu
top=$(cd "$(dirname "$0")/../.." && pwd)
table=${TABLE:-$top/src/trace/mpi_calls.def}
mode=gen
out=$top/src
case "${1:-}" in
--list) mode=list ;;
"") ;;
*) out=$1 ;;
esac
[ -r "$table" ] || { echo "gen-mpi-wrappers.sh: cannot read $table" >&2; exit 1; }

# written to a scratch folder first: a file whose content did not change
# keeps its time, so make rebuilds only what the change touched
tmp=$(mktemp -d "${TMPDIR:-/tmp}/gen-mpi-wrappers.XXXXXX")
trap 'rm -rf "$tmp"' EXIT
mkdir "$tmp/tracer" "$tmp/trace"
awk -v mode="$mode" -v out="$tmp" -v tname="src/trace/mpi_calls.def" '
function die(msg) { printf "gen-mpi-wrappers.sh: %s:%d: %s\n", FILENAME, FNR, msg > "/dev/stderr"; err = 1; exit 1 }
function spaces(n,    s) { s = ""; while (n-- > 0) s = s " "; return s }
function trim(s) { sub(/^[ \t]+/, "", s); sub(/[ \t]+$/, "", s); return s }

# ---- reading the table ----------------------------------------------------
/^[ \t]*#/ || /^[ \t]*$/ { next }
/^[^ \t]/ {
    if (NF != 3 && NF != 4) die("a row is NAME ROLE CLASS [FLAGS]")
    nrow++; row[nrow] = $1; role[$1] = $2; cls[$1] = $3; flags[$1] = NF == 4 ? $4 : ""
    if ($1 in seen) die("row " $1 " twice")
    seen[$1] = 1
    if ($3 !~ /^(unwrapped|hand|plain|send|isend|persist|recv|irecv|sendrecv|coll|icoll|commnew|winnew|rma)$/)
        die("unknown class " $3)
    if (($3 == "unwrapped") != ($2 == "-")) die("row " $1 ": ROLE - is for class unwrapped, and only")
    if ($3 == "unwrapped" && NF != 4) die("row " $1 ": an unwrapped row is there for its FLAGS")
    fre = "(mpi_init|mpi_finalize|ssend|poll|nowait|probe|win_post|win_start|win_complete|win_wait)"
    if (NF == 4 && $4 !~ ("^" fre "(," fre ")*$"))
        die("row " $1 ": FLAGS are mpi_init, mpi_finalize, ssend, poll, nowait, probe, win_post, win_start, win_complete or win_wait, comma-separated")
    next
}
{
    if (!nrow) die("a key line before the first row")
    if (cls[row[nrow]] == "unwrapped") die("row " row[nrow] ": an unwrapped row has no keys")
    k = $1; v = $0; sub(/^[ \t]*[^ \t]+[ \t]+/, "", v); v = trim(v)
    key[row[nrow], k] = v
}

# ---- parameters -------------------------------------------------------------
# parse(name): pn[name] params; pname[name,i], ptype[name,i], parr[name,i]
function parse(r,    s, a, i, p, nm) {
    s = key[r, "c"]
    if (s == "") die("row " r " has no c parameters")
    pn[r] = split(s, a, /,[ \t]*/)
    for (i = 1; i <= pn[r]; i++) {
        p = trim(a[i])
        parr[r, i] = p ~ /\[\]$/
        sub(/[ \t]*\[\]$/, "", p)
        match(p, /[A-Za-z_][A-Za-z0-9_]*$/)
        nm = substr(p, RSTART)
        pname[r, i] = nm
        ptype[r, i] = trim(substr(p, 1, RSTART - 1))
        pidx[r, nm] = i
    }
}
# the C declaration of parameter i
function cdecl(r, i,    t) {
    t = ptype[r, i]
    return t (t ~ /\*$/ ? "" : " ") pname[r, i] (parr[r, i] ? "[]" : "")
}
# the Fortran declaration: buffers void *, MPI_Aint *, every other MPI_Fint *
function fdecl(r, i,    t) {
    t = ptype[r, i]
    if (!parr[r, i] && t ~ /void \*$/) return "void *" pname[r, i]
    if (!parr[r, i] && t == "MPI_Aint") return "MPI_Aint *" pname[r, i]
    return "MPI_Fint *" pname[r, i]
}
# the value of parameter i in a Fortran wrapper, as C would see it
function faccess(r, i,    t, nm) {
    t = ptype[r, i]; nm = pname[r, i]
    if (parr[r, i] || t ~ /\*$/) return nm
    if (t == "int" || t == "MPI_Aint") return "(*" nm ")"
    if (t == "MPI_Comm") return "MPI_Comm_f2c(*" nm ")"
    if (t == "MPI_Datatype") return "MPI_Type_f2c(*" nm ")"
    if (t == "MPI_Op") return "MPI_Op_f2c(*" nm ")"
    if (t == "MPI_Info") return "MPI_Info_f2c(*" nm ")"
    if (t == "MPI_Group") return "MPI_Group_f2c(*" nm ")"
    if (t == "MPI_Win") return "MPI_Win_f2c(*" nm ")"
    die("no Fortran conversion for " t " " nm)
}
# the parameter of a type (MPI_Request *, MPI_Status *), or ""
function ptyped(r, t,    i) {
    for (i = 1; i <= pn[r]; i++) if (ptype[r, i] == t && !parr[r, i]) return pname[r, i]
    return ""
}
# expression e of row r in language lang ("c" or "f"): $x -> the parameter
function sub_expr(r, e, lang,    o, nm) {
    o = ""
    while (match(e, /\$[A-Za-z_][A-Za-z0-9_]*/)) {
        nm = substr(e, RSTART + 1, RLENGTH - 1)
        if (!((r, nm) in pidx)) die("row " r ": $" nm " is no parameter")
        o = o substr(e, 1, RSTART - 1) (lang == "c" ? nm : faccess(r, pidx[r, nm]))
        e = substr(e, RSTART + RLENGTH)
    }
    return o e
}
function need(r, k) { if (key[r, k] == "") die("row " r " needs key " k); return key[r, k] }
function X(r, k, lang) { return sub_expr(r, need(r, k), lang) }
function uses(e, v) { return e ~ ("(^|[^A-Za-z0-9_$])" v "([^A-Za-z0-9_]|$)") }

# ---- output helpers -----------------------------------------------------------
# items joined by ", ", broken before 96 columns, continuation indented
function join(items, n, first, indent,    s, i, line, it) {
    s = ""; line = first
    for (i = 1; i <= n; i++) {
        it = items[i] (i < n ? "," : "")
        if (i > 1 && length(line) + 1 + length(it) > 96) { s = s line "\n"; line = indent it }
        else line = line (i > 1 ? " " : "") it
    }
    return s line
}
function csig(r,    it, i) {
    for (i = 1; i <= pn[r]; i++) it[i] = cdecl(r, i)
    return join(it, pn[r], "UPT_EXPORT int " r "(", spaces(length(r) + 16)) ")"
}
function ccall(r, lhs,    it, i) {
    for (i = 1; i <= pn[r]; i++) it[i] = pname[r, i]
    return join(it, pn[r], lhs "P" r "(", spaces(length(lhs) + length(r) + 2)) ")"
}
function fsig(r, lower,    it, i) {
    for (i = 1; i <= pn[r]; i++) it[i] = fdecl(r, i)
    it[pn[r] + 1] = "MPI_Fint *ierr"
    return "FORTRAN(" lower ", " toupper(lower) ",\n" join(it, pn[r] + 1, "        (", "         ") "))"
}
# the Fortran call; a status parameter replaced by st_ (ours if ignored)
function fcall(r, lower, lhs, st,    it, i) {
    for (i = 1; i <= pn[r]; i++) it[i] = (st != "" && pname[r, i] == st) ? "st_" : pname[r, i]
    it[pn[r] + 1] = "ierr"
    return join(it, pn[r] + 1, lhs "p" lower "_(", spaces(length(lhs) + length(lower) + 3)) ");"
}

# ---- one wrapper, in either language --------------------------------------------
# the record calls between Enter and Leave, around the PMPI call `call`
function body(r, lang, call,    c, on, ok, comm, req, st, s, pre, post, e, nm, n_me, R) {
    c = cls[r]; R = "UPT_R_" r
    on = (c == "rma" || c == "winnew") ? "upt_recording()" : "upt_on"
    ok = lang == "c" ? "rc == MPI_SUCCESS" : "*ierr == MPI_SUCCESS"
    comm = (key[r, "comm"] != "") ? "upt_comm_id(" X(r, "comm", lang) ")" : ""
    req = ptyped(r, "MPI_Request *")
    if (req != "") req = lang == "c" ? "*" req : "MPI_Request_f2c(*" req ")"
    pre = ""; post = ""; decl = ""
    if (c == "send" || c == "isend" || c == "sendrecv") {
        if (c == "sendrecv") { decl = decl "    uint32_t c_;\n"; pre = pre "    c_ = " comm ";\n"; comm = "c_" }
        if (c == "isend") decl = decl "    uint64_t id = 0;\n"
        pre = pre "    if (" X(r, "peer", lang) " != MPI_PROC_NULL)\n        " \
              (c == "isend" ? "id = upt_isend_begin(" : "upt_send(") \
              "(uint32_t)" X(r, "peer", lang) ", " comm ", (uint32_t)" X(r, "tag", lang) ",\n" \
              "                 " X(r, "bytes", lang) ");\n"
        if (c == "isend") post = post "    if (" ok ")\n        upt_req_isend(" req ", id);\n"
    }
    if (c == "recv" || c == "sendrecv") {
        st = ptyped(r, "MPI_Status *")
        if (st == "") die("row " r ": no MPI_Status * parameter")
        if (lang == "c") {
            decl = decl "    MPI_Status own_, *st_;\n"
            pre = pre "    st_ = " st " == MPI_STATUS_IGNORE ? &own_ : " st ";\n"
        } else {
            decl = decl "    MPI_Fint own_[UPT_FSTATUS], *st_;\n"
            pre = pre "    st_ = upt_f_status_or(" st ", own_);\n"
        }
        post = post "    if (" ok ")\n        upt_record_recv" (lang == "f" ? "_f" : "") "(st_, " comm \
               ", upt_wildcard(" X(r, "src", lang) ", " X(r, "rtag", lang) "));\n"
        if (lang == "c") call = ccall_st(r, st)
    }
    if (c == "irecv")
        post = post "    if (" ok " && " X(r, "src", lang) " != MPI_PROC_NULL)\n        upt_req_irecv(" req ", " comm \
               ",\n                      upt_wildcard(" X(r, "src", lang) ", " X(r, "rtag", lang) "));\n"
    if (c == "persist")
        post = post "    if (" ok ")\n        upt_req_persistent(" req ", " need(r, "send") ", (uint32_t)" X(r, "peer", lang) \
               ", " comm ",\n                           (uint32_t)" X(r, "tag", lang) ", " X(r, "bytes", lang) ");\n"
    if (c == "coll" || c == "icoll") {
        e = key[r, "root"] " " key[r, "sent"] " " key[r, "recvd"]
        n_me = ""
        if (key[r, "b"] != "") n_me = n_me "        const uint64_t b = " X(r, "b", lang) ";\n"
        if (uses(e, "n")) n_me = n_me "        const int n = upt_comm_size(" X(r, "comm", lang) ");\n"
        if (uses(e, "me")) n_me = n_me "        const int me = upt_comm_rank(" X(r, "comm", lang) ");\n"
        s = "OTF2_COLLECTIVE_OP_" need(r, "op") ", " comm ",\n                     " \
            (need(r, "root") == "NOROOT" ? "OTF2_UNDEFINED_UINT32" : "(uint32_t)" X(r, "root", lang)) ",\n" \
            "                     " X(r, "sent", lang) ",\n                     " X(r, "recvd", lang) ");\n"
        if (c == "coll") {
            pre = pre "    upt_coll_begin();\n"
            post = post "    {\n" n_me "        upt_coll_end(" s "    }\n"
        } else
            post = post "    if (" ok ") {\n" n_me "        upt_req_icoll(" req ", " s "    }\n"
    }
    if (c == "commnew") {
        nm = need(r, "newcomm")
        pre = pre "    upt_coll_begin();\n"
        post = post "    if (" ok ")\n        " (lang == "c" ? "upt_comm_created(*" nm ")" : "upt_comm_created_f(*" nm ")") ";\n" \
               "    upt_coll_end(OTF2_COLLECTIVE_OP_CREATE_HANDLE, " comm ", OTF2_UNDEFINED_UINT32, 0, 0);\n"
    }
    if (c == "winnew") {
        nm = need(r, "win")
        pre = pre "    upt_win_create_begin();\n"
        post = post "    upt_win_create_end(" ok " ? " (lang == "c" ? "*" nm : "MPI_Win_f2c(*" nm ")") " : MPI_WIN_NULL, " \
               X(r, "comm", lang) ", " R ",\n                       " need(r, "allocated") ");\n"
    }
    if (c == "rma")
        pre = pre "    upt_rma_op(" X(r, "win", lang) ", " X(r, "target", lang) ", UPT_RMA_" need(r, "kind") \
              ", OTF2_RMA_ATOMIC_TYPE_" need(r, "atype") ",\n               " X(r, "put", lang) ", " X(r, "got", lang) ");\n"
    s = decl
    if (lang == "c") {
        s = "    int rc;\n" s "    if (!" on ")\n        return " ccall(r, "") ";\n"
        s = s "    upt_enter(" R ");\n" pre "    " call ";\n" post "    upt_leave(" R ");\n    return rc;\n"
    } else {
        s = s "    if (!" on ") {\n        " plaincall ";\n        return;\n    }\n"
        s = s "    upt_enter(" R ");\n" pre "    " call "\n" post "    upt_leave(" R ");\n"
    }
    return s
}
# the C call with the status parameter replaced by st_
function ccall_st(r, st,    it, i) {
    for (i = 1; i <= pn[r]; i++) it[i] = pname[r, i] == st ? "st_" : pname[r, i]
    return join(it, pn[r], "rc = P" r "(", spaces(length(r) + 7)) ")"
}

function gen_c(r) {
    printf "%s\n{\n%s}\n\n", csig(r), body(r, "c", ccall(r, "rc = ")) > cfile
}
function gen_f(r, lower, st, fc) {
    st = (cls[r] == "recv" || cls[r] == "sendrecv") ? ptyped(r, "MPI_Status *") : ""
    plaincall = fcall(r, lower, "", "")
    sub(/;$/, "", plaincall)
    fc = fcall(r, lower, "", st)
    printf "%s\n{\n%s}\n\n", fsig(r, lower), body(r, "f", fc) > ffile
}

END {
    if (err) exit 1
    # the nonblocking collectives: their blocking twin plus the request
    for (i = 1; i <= nrow; i++) {
        r = row[i]
        if (cls[r] != "icoll") continue
        b = need(r, "of")
        if (cls[b] != "coll") die("row " r ": of " b ", which is no coll row")
        key[r, "c"] = key[b, "c"] ", MPI_Request *req"
        split("comm op root b sent recvd", ks, " ")
        for (j in ks) key[r, ks[j]] = key[b, ks[j]]
    }
    for (i = 1; i <= nrow; i++) if (cls[row[i]] != "hand" && cls[row[i]] != "unwrapped") parse(row[i])
    if (mode == "list") {
        for (i = 1; i <= nrow; i++)
            if (cls[row[i]] != "hand" && cls[row[i]] != "unwrapped")
                print row[i], cls[row[i]] (key[row[i], "fcptr"] == "yes" ? " cptr" : "")
        exit 0
    }
    gen = "Generated by tools/dev/gen-mpi-wrappers.sh from " tname ": do not edit;\n * edit the table and run the generator (docs/tracer.md, \"How the wrappers are made\")."

    rfile = out "/tracer/mpi_regions.h"
    printf "/* mpi_regions.h - the MPI functions the tracer wraps: name, OTF2 region\n * role, in the order of " tname " (their region ids).\n * %s */\n", gen > rfile
    printf "#ifndef UNPERTURB_MPI_REGIONS_H\n#define UNPERTURB_MPI_REGIONS_H\n\n#define UPT_MPI_REGIONS(X)" > rfile
    for (i = 1; i <= nrow; i++)
        if (cls[row[i]] != "unwrapped") printf " \\\n    X(%s, %s)", row[i], role[row[i]] > rfile
    printf "\n\n#endif\n" > rfile
    close(rfile)

    cfile = out "/tracer/mpi_c_gen.c"
    printf "/*\n * mpi_c_gen.c - the PMPI wrappers of C callers for the generated rows of\n * the table (the others: mpi_c_hand.c).  Records as upt.h and\n * docs/tracer.md describe them; every wrapper is a plain call of its PMPI\n * function while the tracer does not record.\n *\n * %s\n */\n", gen > cfile
    printf "#include \"tracer/wrap.h\"\n\n" > cfile
    printf "#define BYTES(count, type) upt_bytes(count, type)\n#define SUMC(counts, n, type) upt_sum_counts(counts, n, type)\n#define SUMW(counts, types, n) upt_sum_w(counts, types, n)\n#define INPLACE(buf) ((buf) == MPI_IN_PLACE)\n\n" > cfile
    for (i = 1; i <= nrow; i++) if (cls[row[i]] != "hand" && cls[row[i]] != "unwrapped") gen_c(row[i])
    close(cfile)

    ffile = out "/tracer/mpi_f_gen.c"
    printf "/*\n * mpi_f_gen.c - the wrappers of Fortran callers (use mpi, mpif.h) for the\n * generated rows of the table, the twins of mpi_c_gen.c: the same records\n * for the same call (tests/tracer/twins.sh checks it).  Each calls its\n * pmpi_xxx_ with the caller'\''s arguments unchanged (wrap.h, FORTRAN).\n *\n * %s\n */\n", gen > ffile
    printf "#include \"tracer/wrap.h\"\n\n" > ffile
    printf "#define BYTES(count, type) upt_bytes(count, type)\n#define SUMC(counts, n, type) upt_sum_counts(counts, n, type)\n#define SUMW(counts, types, n) upt_sum_wf(counts, types, n)\n#define INPLACE(buf) upt_f_in_place(buf)\n\n" > ffile
    for (i = 1; i <= nrow; i++) {
        r = row[i]
        if (cls[r] == "hand" || cls[r] == "unwrapped") continue
        lower = tolower(r)
        gen_f(r, lower)
        if (key[r, "fcptr"] == "yes") gen_f(r, lower "_cptr")
    }
    close(ffile)

    kfile = out "/trace/mpi_classes.h"
    printf "/* mpi_classes.h - the classes of MPI calls by name (their UP_REGION_* flags),\n * the FLAGS of the rows of " tname " (and\n * UP_REGION_COLL of its rows of class coll), in its order:\n * what src/trace/defs.c gives a region of that name, in any trace.\n * %s */\n", gen > kfile
    printf "#ifndef UNPERTURB_MPI_CLASSES_H\n#define UNPERTURB_MPI_CLASSES_H\n\n#define UP_MPI_CLASSES(X)" > kfile
    for (i = 1; i <= nrow; i++) {
        r = row[i]
        if (flags[r] == "" && cls[r] != "coll") continue
        n = flags[r] == "" ? 0 : split(flags[r], fl, ",")
        s = ""
        for (j = 1; j <= n; j++) s = s (j > 1 ? " | " : "") "UP_REGION_" toupper(fl[j])
        if (cls[r] == "coll") s = s (n ? " | " : "") "UP_REGION_COLL"
        printf " \\\n    X(%s, %s)", r, s > kfile
    }
    printf "\n\n#endif\n" > kfile
    close(kfile)
}
' "$table"
[ "$mode" = list ] && exit 0
for f in tracer/mpi_regions.h tracer/mpi_c_gen.c tracer/mpi_f_gen.c trace/mpi_classes.h; do
    mkdir -p "$out/${f%/*}"
    cmp -s "$tmp/$f" "$out/$f" 2>/dev/null || cp "$tmp/$f" "$out/$f"
done
