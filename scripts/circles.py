#!/usr/bin/env python3
"""Import circles of src/, from the repository root: `scripts/circles.py [PREFIX...]`.

Every `use` and every `crate::`/`super::`/`self::` path from module A to module B (tests left
out) is an edge between the two sibling modules where their paths part
(`crate::lang::rust::x` used in `lang/python/y.rs` gives python -> rust under lang; a module's
own ancestors and descendants are no edge). Prints the cycles among those siblings with one
example use per edge, only those touching a PREFIX (`lang`, `workspace::write`) when given."""
import re, sys, glob
files=glob.glob('src/**/*.rs', recursive=True)
def modpath(f):
    p=f[len('src/'):-3].split('/')
    if p[-1]=='mod': p=p[:-1]
    if p in (['lib'],['main']): return ()
    return tuple(p)
mods={modpath(f):f for f in files if not f.endswith('main.rs')}
# Test modules kept in files of their own (`#[cfg(test)] mod tests;`) are left out too.
for m,f in list(mods.items()):
    for name in re.findall(r'#\[cfg\(test\)\]\s*(?:pub(?:\([\w:]+\))?\s+)?mod\s+(\w+)\s*;', open(f).read()):
        mods.pop(m+(name,), None)
def resolve(path):
    for n in range(len(path),0,-1):
        if tuple(path[:n]) in mods: return tuple(path[:n])
    return None
def expand(prefix, body, out):
    body=body.strip()
    if body.startswith('{') and body.endswith('}'):
        depth=0; cur=''; parts=[]
        for ch in body[1:-1]:
            if ch=='{': depth+=1
            if ch=='}': depth-=1
            if ch==',' and depth==0: parts.append(cur); cur=''
            else: cur+=ch
        parts.append(cur)
        for part in parts: expand(prefix, part, out)
        return
    m2=re.match(r'([\w:]*?)::(\{.*\})$', body, re.S)
    if m2:
        expand(prefix+'::'+m2.group(1) if prefix else m2.group(1), m2.group(2), out); return
    full=(prefix+'::'+body) if prefix else body
    out.append(full.split(' as ')[0].strip())
edges={}
for m,f in mods.items():
    text=open(f).read()
    text=re.split(r'#\[cfg\(test\)\]\s*mod tests', text)[0]
    text=re.sub(r'//[^\n]*','',text)
    paths=[]
    for u in re.findall(r'\buse\s+([^;]+);', text): expand('', u, paths)
    paths += re.findall(r'\b((?:crate|super|self)(?:::\w+)+)', text)
    for p_ in paths:
        segs=[x for x in re.sub(r'\s','',p_).split('::') if x]
        if not segs or segs[0] not in ('crate','super','self'): continue
        if segs[0]=='crate': base=[]; rest=segs[1:]
        elif segs[0]=='self': base=list(m); rest=segs[1:]
        else:
            base=list(m[:-1]); rest=segs[1:]
            while rest and rest[0]=='super': base=base[:-1]; rest=rest[1:]
        t=resolve(base+rest)
        if not t or t==m: continue
        # sibling edge where the paths part
        k=0
        while k<len(m) and k<len(t) and m[k]==t[k]: k+=1
        if k>=len(m) or k>=len(t): continue  # ancestor/descendant
        a=m[:k+1]; b=t[:k+1]
        edges.setdefault(a,{}).setdefault(b,f"{f}: {p_.strip()}")
prefixes=[tuple(p.split('::')) for p in sys.argv[1:]]
keep=lambda x: not prefixes or any(x[:len(p)]==p or p[:len(x)]==x for p in prefixes)
index={};low={};st=[];on=set();sccs=[];i=[0]
sys.setrecursionlimit(10000)
nodes=set(edges)|{b for a in edges for b in edges[a]}
def sc(v):
    index[v]=low[v]=i[0]; i[0]+=1; st.append(v); on.add(v)
    for w in edges.get(v,{}):
        if w not in index: sc(w); low[v]=min(low[v],low[w])
        elif w in on: low[v]=min(low[v],index[w])
    if low[v]==index[v]:
        comp=[]
        while True:
            w=st.pop(); on.discard(w); comp.append(w)
            if w==v: break
        if len(comp)>1: sccs.append(comp)
for v in sorted(nodes):
    if v not in index: sc(v)
n=0
for comp in sccs:
    if not any(keep(c) for c in comp): continue
    n+=1
    print('circle:', ' <-> '.join('::'.join(c) for c in sorted(comp)))
    for a in comp:
        for b in comp:
            if b in edges.get(a,{}): print('   ', '::'.join(a),'->','::'.join(b),' e.g.',edges[a][b])
print(f'{n} circle(s)')
