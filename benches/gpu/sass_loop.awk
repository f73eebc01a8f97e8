# The hot loop of one function in `cuobjdump -sass -fun NAME` output: of the backward branches
# (a BRA to a lower address), the one whose body [target, branch] holds the most global loads
# (LDG, or generic LD). Prints its instructions, one per line ("addr  INSTR"), then a summary line
# counting instruction classes. POSIX awk (no gawk extensions).
#
#   cuobjdump -sass -fun bench_reduce_redux warpkit.cubin | awk -f sass_loop.awk

function hex(s,    i, c, v) {
    v = 0
    s = tolower(s)
    sub(/^0x/, "", s)
    for (i = 1; i <= length(s); i++) {
        c = index("0123456789abcdef", substr(s, i, 1))
        if (c == 0) break
        v = v * 16 + c - 1
    }
    return v
}

# Lines look like: "        /*0150*/                   LDG.E R0, desc[UR6][R26.64] ;   /* 0x... */"
/^[ \t]*\/\*[0-9a-f][0-9a-f][0-9a-f][0-9a-f]+\*\/[ \t]/ {
    line = $0
    sub(/^[ \t]*\/\*/, "", line)
    a = line
    sub(/\*\/.*/, "", a)
    ins = line
    sub(/^[0-9a-f]+\*\/[ \t]*/, "", ins)
    sub(/[ \t]*;.*$/, "", ins)
    n++
    addr[n] = hex(a)
    text[n] = ins
    hexaddr[n] = a
    isload[n] = (ins ~ /(^|[ \t])LDG(\.|[ \t])/ || ins ~ /(^|[ \t])LD\.E/) ? 1 : 0
    if (ins ~ /BRA[ \t]+(`\(\.L_x_[0-9]+\)|0x[0-9a-f]+)/) {
        t = ins
        sub(/.*BRA[ \t]+/, "", t)
        if (t ~ /^0x/ && hex(t) < addr[n]) {
            nb++
            bfrom[nb] = n
            bto[nb] = hex(t)
        }
    }
}

END {
    best = 0
    bestloads = 0
    for (b = 1; b <= nb; b++) {
        loads = 0
        for (i = 1; i <= bfrom[b]; i++)
            if (addr[i] >= bto[b] && isload[i]) loads++
        if (loads > bestloads || (loads == bestloads && loads > 0 && bfrom[b] - 0 > bfrom[best])) {
            best = b
            bestloads = loads
        }
    }
    if (best == 0) {
        print "(no loop with a global load found)"
        exit 0
    }
    total = 0
    nld = 0; ncmp = 0; nbra = 0; nint = 0; nshfl = 0; nst = 0; nother = 0
    for (i = 1; i <= bfrom[best]; i++) {
        if (addr[i] < bto[best]) continue
        print hexaddr[i] "  " text[i]
        total++
        op = text[i]
        sub(/^@!?U?P[0-9T]+[ \t]+/, "", op)
        sub(/[ \t].*/, "", op)
        if (isload[i]) nld++
        else if (op ~ /^(STG|ST)\./ || op == "STG" || op == "ST") nst++
        else if (op ~ /^U?ISETP/) ncmp++
        else if (op ~ /^(BRA|BSSY|BSYNC|EXIT|CALL)/) nbra++
        else if (op ~ /^(SHFL|REDUX|VOTE|MATCH)/) nshfl++
        else if (op ~ /^U?(IADD|IMAD|LEA|SHF|LOP|SEL|MOV|VIADD|IABS|I2F|F2I|POPC|FLO|UMOV)/) nint++
        else nother++
    }
    printf "-- %d instructions: %d global loads, %d stores, %d compares, %d branches, %d warp, %d integer/move, %d other\n", total, nld, nst, ncmp, nbra, nshfl, nint, nother
}
