! f_prog.f90 - the Fortran (`use mpi`) program of the tracer's end-to-end
! test: run it on 2 or 4 ranks under libunperturb-trace.so and every call
! below must reach the Fortran wrappers (src/tracer/mpi_f_gen.c and
! mpi_f_hand.c).  Without the tracer it checks its own
! results and prints "f_prog: ok" on rank 0 (exit status 1 on a wrong result).
!
! n = size of MPI_COMM_WORLD (2 or 4), r = this rank, m = n/2 = size of the
! even/odd communicator.  "world" is MPI_COMM_WORLD; in the merged archive
! the even and the odd communicator are two different communicators of m
! members each (ranks 0,2,.. and 1,3,..).
!
! Steps, in order, and the records each writes on every rank:
!   1 ring       MPI_SEND 100 integers, tag 7, to mod(r+1,n);
!                MPI_RECV 100 integers, tag 7, from mod(r-1+n,n) (a real
!                status, checked).  Even ranks send first, odd ranks receive
!                first.
!                  MpiSend  dest mod(r+1,n),   comm world, tag 7, 400 bytes
!                  MpiRecv  src  mod(r-1+n,n), comm world, tag 7, 400 bytes
!   2 pair       MPI_IRECV 50 integers, tag 8, from mod(r+1,n);
!                MPI_ISEND 50 integers, tag 8, to mod(r-1+n,n);
!                MPI_WAITALL(2, ..., MPI_STATUSES_IGNORE)
!                  MpiIrecvRequest (in MPI_Irecv)
!                  MpiIsend dest mod(r-1+n,n), comm world, tag 8, 200 bytes
!                  in MPI_Waitall: MpiIrecv src mod(r+1,n), comm world,
!                  tag 8, 200 bytes, and MpiIsendComplete (request order:
!                  the receive first); the request ids pair up
!   3 MPI_ALLREDUCE one double precision, MPI_SUM, world
!                  CollectiveBegin/End ALLREDUCE, world, root undefined,
!                  sent 8*n, received 8*n
!   4 MPI_BCAST 10 integers from root 0, world
!                  BCAST, root 0; rank 0: sent 40*(n-1), received 0;
!                  others: sent 0, received 40
!   5 MPI_BARRIER world
!                  BARRIER, root undefined, sent 0, received 0
!   6 MPI_COMM_SPLIT(world, color mod(r,2), key r)
!                  CREATE_HANDLE on world, root undefined, 0, 0
!   7 MPI_ALLREDUCE(MPI_IN_PLACE, one integer, MPI_SUM, split communicator)
!                  ALLREDUCE on the split communicator, sent 0 (in place),
!                  received 4*m
!   8 MPI_COMM_FREE(split communicator)   Enter/Leave only
!   9 MPI_FINALIZE
!
! Totals per rank: MpiSend 1, MpiRecv 1, MpiIsend 1, MpiIsendComplete 1,
! MpiIrecvRequest 1, MpiIrecv 1, MpiRequestTest 0, MpiRequestCancelled 0,
! MpiCollectiveBegin 5, MpiCollectiveEnd 5 (ALLREDUCE 2, BCAST 1, BARRIER 1,
! CREATE_HANDLE 1).
! Enter = Leave = 1 each for MPI_Init (written by upt_init_from), MPI_Send,
! MPI_Recv, MPI_Irecv, MPI_Isend, MPI_Waitall, MPI_Bcast, MPI_Barrier,
! MPI_Comm_split, MPI_Comm_free, MPI_Finalize (written by upt_finalize);
! 2 each for MPI_Allreduce: 12 regions, 13 Enter and 13 Leave records from
! MPI (more if the program's own functions are hooked, which they are not:
! it is not compiled with -finstrument-functions).
! Collective byte counts (mpi_calls.def's, Score-P's way) for n = 4: ALLREDUCE
! 32/32, BCAST rank 0 120/0 and others 0/40, split ALLREDUCE 0/8; for n = 2:
! 16/16, 40/0 and 0/40, 0/4.
! Whole archive (n ranks): n MpiSend, n MpiRecv, n MpiIsend, n MpiIrecv, 5n
! collective begin/end pairs; every message is matched (ring tag 7: 400
! bytes, pair tag 8: 200 bytes).
program f_prog
    use mpi
    implicit none
    integer :: ierr, r, n, left, right, k, cnt, sub, subr, subn, isum
    integer :: ring_out(100), ring_in(100), pair_out(50), pair_in(50), b(10)
    integer :: st(MPI_STATUS_SIZE), reqs(2)
    double precision :: xs, x
    logical :: good

    call MPI_INIT(ierr)
    call MPI_COMM_RANK(MPI_COMM_WORLD, r, ierr)
    call MPI_COMM_SIZE(MPI_COMM_WORLD, n, ierr)
    right = mod(r + 1, n)
    left = mod(r - 1 + n, n)
    good = .true.

    ! 1 ring
    ring_out = [(r * 1000 + k, k = 1, 100)]
    ring_in = -1
    if (mod(r, 2) == 0) then
        call MPI_SEND(ring_out, 100, MPI_INTEGER, right, 7, MPI_COMM_WORLD, ierr)
        call MPI_RECV(ring_in, 100, MPI_INTEGER, left, 7, MPI_COMM_WORLD, st, ierr)
    else
        call MPI_RECV(ring_in, 100, MPI_INTEGER, left, 7, MPI_COMM_WORLD, st, ierr)
        call MPI_SEND(ring_out, 100, MPI_INTEGER, right, 7, MPI_COMM_WORLD, ierr)
    end if
    call MPI_GET_COUNT(st, MPI_INTEGER, cnt, ierr)
    if (st(MPI_SOURCE) /= left .or. st(MPI_TAG) /= 7 .or. cnt /= 100) good = .false.
    if (any(ring_in /= [(left * 1000 + k, k = 1, 100)])) good = .false.

    ! 2 nonblocking pair, the other way round
    pair_out = [(r * 100 + k, k = 1, 50)]
    pair_in = -1
    call MPI_IRECV(pair_in, 50, MPI_INTEGER, right, 8, MPI_COMM_WORLD, reqs(1), ierr)
    call MPI_ISEND(pair_out, 50, MPI_INTEGER, left, 8, MPI_COMM_WORLD, reqs(2), ierr)
    call MPI_WAITALL(2, reqs, MPI_STATUSES_IGNORE, ierr)
    if (any(pair_in /= [(right * 100 + k, k = 1, 50)])) good = .false.
    if (any(reqs /= MPI_REQUEST_NULL)) good = .false.

    ! 3 allreduce of one double
    xs = dble(r + 1)
    x = 0
    call MPI_ALLREDUCE(xs, x, 1, MPI_DOUBLE_PRECISION, MPI_SUM, MPI_COMM_WORLD, ierr)
    if (abs(x - dble(n * (n + 1) / 2)) > 0.5d0) good = .false.

    ! 4 bcast from 0
    b = 0
    if (r == 0) b = [(k * k, k = 1, 10)]
    call MPI_BCAST(b, 10, MPI_INTEGER, 0, MPI_COMM_WORLD, ierr)
    if (any(b /= [(k * k, k = 1, 10)])) good = .false.

    ! 5 barrier
    call MPI_BARRIER(MPI_COMM_WORLD, ierr)

    ! 6, 7, 8 even/odd communicator, an in-place allreduce on it, free it
    call MPI_COMM_SPLIT(MPI_COMM_WORLD, mod(r, 2), r, sub, ierr)
    call MPI_COMM_RANK(sub, subr, ierr)
    call MPI_COMM_SIZE(sub, subn, ierr)
    if (subn /= n / 2 .or. subr /= r / 2) good = .false.
    isum = r
    call MPI_ALLREDUCE(MPI_IN_PLACE, isum, 1, MPI_INTEGER, MPI_SUM, sub, ierr)
    ! even ranks 0+2+..., odd ranks 1+3+...
    if (isum /= sum([(k, k = mod(r, 2), n - 1, 2)])) good = .false.
    call MPI_COMM_FREE(sub, ierr)
    if (sub /= MPI_COMM_NULL) good = .false.

    if (.not. good) then
        print '(a,i0,a)', 'f_prog: rank ', r, ': wrong result'
        call MPI_FINALIZE(ierr)
        stop 1
    end if
    if (r == 0) print '(a)', 'f_prog: ok'
    call MPI_FINALIZE(ierr)
end program f_prog
